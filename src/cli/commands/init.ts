import { mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { createInterface } from "node:readline"
import { noPositionals, type ParsedArgs, stringOption, UsageError } from "../../commands/args.ts"
import { defaultConfigPath } from "../../commands/config-path.ts"
import { EXIT } from "../../commands/exit.ts"
import { writeStderr, writeStdout } from "../../commands/output.ts"
import { processEnv } from "../../config/env.ts"

type Choice = { provider: string; model: string; keyEnv: string | null; note?: string }

/** What `dupin init` offers, first the default; each model is in the built-in catalog. */
const CHOICES: readonly Choice[] = [
  { provider: "openai", model: "openai/gpt-4.1", keyEnv: "OPENAI_API_KEY" },
  { provider: "anthropic", model: "anthropic/claude-sonnet-4-5", keyEnv: "ANTHROPIC_API_KEY" },
  { provider: "gemini", model: "gemini/gemini-2.5-pro", keyEnv: "GEMINI_API_KEY" },
  { provider: "openrouter", model: "openrouter/openai/gpt-4.1", keyEnv: "OPENROUTER_API_KEY" },
  { provider: "deepseek", model: "deepseek/deepseek-chat", keyEnv: "DEEPSEEK_API_KEY" },
  { provider: "xai", model: "xai/grok-4", keyEnv: "XAI_API_KEY" },
  { provider: "ollama", model: "ollama/llama3.1", keyEnv: null, note: "a local Ollama, no key" },
]

/** `dupin init`: a commented starter config at the default path (or `--config FILE`). */
export async function initCommand(args: ParsedArgs): Promise<number> {
  noPositionals(args, "init")
  const env = processEnv()
  const path = stringOption(args, "config") ?? (env.SVC_CONFIG_PATH || defaultConfigPath(env))
  if (!path) throw new UsageError("HOME is not set, so there is no default config path: pass --config FILE")
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true
  const choice = interactive ? await askProvider() : (CHOICES[0] as Choice)
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  try {
    // "wx": never replace a config someone already wrote, even one created a moment ago.
    writeFileSync(path, starterConfig(choice), { flag: "wx", mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new UsageError(`${path} already exists; edit it, or pass --config FILE to write another`)
    }
    throw new UsageError(`cannot write ${path}: ${(error as Error).message}`)
  }
  const where = path === defaultConfigPath(env) ? "" : ` --config ${path}`
  const next: Array<[string, string]> = [
    ...(choice.keyEnv
      ? [[`export ${choice.keyEnv}=...`, "the config reads the key from here"] as [string, string]]
      : []),
    [`dupin toolsets${where}`, "what dupin can look at on this machine"],
    [`dupin ask${where} "why is my pod restarting?"`, "the first question"],
  ]
  const width = Math.max(...next.map(([command]) => command.length))
  const steps = [
    `Wrote ${path} (model ${choice.model}).`,
    "Next:",
    ...next.map(([command, why]) => `  ${command.padEnd(width)}  # ${why}`),
  ]
  await writeStdout(`${steps.join("\n")}\n`)
  return EXIT.ok
}

async function askProvider(): Promise<Choice> {
  const menu = CHOICES.map(
    (c, i) => `  ${i + 1}) ${c.provider.padEnd(11)} ${c.model}${c.note ? ` (${c.note})` : ""}`,
  ).join("\n")
  writeStderr(`Which model provider?\n${menu}\n`)
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    for (;;) {
      const answer = await new Promise<string | null>((resolve) => {
        rl.question(`Choose 1-${CHOICES.length} [1]: `, resolve)
        rl.once("close", () => resolve(null))
      })
      if (answer === null) throw new UsageError("no provider chosen (end of input)")
      const text = answer.trim().toLowerCase()
      if (text === "") return CHOICES[0] as Choice
      const byNumber = CHOICES[Number(text) - 1]
      const byName = CHOICES.find((c) => c.provider === text)
      const choice = /^\d+$/.test(text) ? byNumber : byName
      if (choice) return choice
      writeStderr(`"${answer.trim()}" is not one of the choices.\n`)
    }
  } finally {
    rl.close()
  }
}

function starterConfig(choice: Choice): string {
  const key = choice.keyEnv ? `"{{ env.${choice.keyEnv} }}"` : "null"
  return `# dupin configuration, written by \`dupin init\`. Every key: deploy/config.example.yaml.
# \`{{ env.NAME }}\` is replaced by the environment variable NAME when the value is used, so the
# key itself never sits in this file.

# The model: provider/model (openai/gpt-4.1, anthropic/claude-sonnet-4-5, ollama/llama3.1, ...).
# \`dupin models\` lists what is usable; \`dupin ask --model\` picks another for one run.
model: ${choice.model}

# The provider key${choice.keyEnv ? `, read from ${choice.keyEnv}` : " (none needed)"}.
api_key: ${key}

# Another endpoint for the same wire format (a proxy, vLLM, LiteLLM); null = the provider's.
api_base: null

# At most this many model calls per question.
max_steps: 40

# Named in the system prompt, so answers say which cluster they are about.
# cluster_name: prod-eu-1

# Extra YAML toolset files, and per-toolset switches (\`dupin toolsets\` shows what is enabled).
# custom_toolsets: [~/.config/dupin/toolsets/team.yaml]
# toolsets:
#   docker/core: { enabled: false }
#   bash: { enabled: true }
`
}
