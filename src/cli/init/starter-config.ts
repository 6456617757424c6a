import type { InitChoice } from "./choice.ts"

/** The commented starter config `dupin init` writes for a choice. */
export function starterConfig(choice: InitChoice): string {
  const key = choice.keyEnv ? `"{{ env.${choice.keyEnv} }}"` : "null"
  const keyNote = choice.keyEnv
    ? `, read from ${choice.keyEnv}`
    : choice.apiBase
      ? " (none: the server at api_base takes none; set one if it does)"
      : " (none needed)"
  const window =
    choice.contextWindow === null
      ? `# The context window in tokens, when the built-in catalog does not know the model:
# context_window: 32768
# max_output_tokens: 4096`
      : `# The context window in tokens the server actually serves (a local server often serves less
# than the model supports: Ollama's num_ctx, vLLM's --max-model-len). Raise it to match.
context_window: ${choice.contextWindow}
# max_output_tokens: 4096`
  return `# dupin configuration, written by \`dupin init\`. Every key: deploy/config.example.yaml.
# \`{{ env.NAME }}\` is replaced by the environment variable NAME when the value is used, so the
# key itself never sits in this file.

# The model: provider/model (openai/gpt-4.1, anthropic/claude-sonnet-4-5, ollama/llama3.1, ...).
# \`dupin models\` lists what is usable; \`dupin ask --model\` picks another for one run.
model: ${choice.model}

# The provider key${keyNote}.
api_key: ${key}

# Another endpoint for the same wire format (vLLM, LiteLLM, llama.cpp, LM Studio, a proxy);
# null = the provider's.
api_base: ${choice.apiBase ?? "null"}

${window}

# At most this many model calls per question.
max_steps: 40

# Named in the system prompt, so answers say which cluster they are about.
# cluster_name: prod-eu-1

# Extra YAML toolset files (HolmesGPT's load too), and per-toolset switches (\`dupin toolsets\`
# shows what is enabled). Relative paths are read from this file's folder.
# custom_toolsets: [~/.config/dupin/toolsets/team.yaml]
# toolsets:
#   docker/core: { enabled: false }
#   bash: { enabled: true }
`
}
