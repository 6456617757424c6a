/**
 * What `dupin init` writes a config for: a provider's model, or a model on an OpenAI-compatible
 * server (vLLM, LiteLLM, llama.cpp, LM Studio) given by its URL. Chosen from the menu on a
 * terminal, or from `--provider/--model/--api-base/--api-key-env/--context-window` in scripts.
 */
import { UsageError } from "../../commands/args.ts"

export type InitChoice = {
  /** The model id written as `model:` (`openai/gpt-4.1`, `openai/qwen2.5` behind an api_base). */
  model: string
  /** The variable the key is read from; null when none is needed. */
  keyEnv: string | null
  /** Written as `api_base:`; a model behind one needs no key unless the server asks for one. */
  apiBase: string | null
  /** Written as `context_window:` (local and self-hosted models: the catalog cannot know it). */
  contextWindow: number | null
}

export type Provider = { provider: string; model: string; keyEnv: string | null; note?: string }

/** The menu, first the default; each model is in the built-in catalog. */
export const PROVIDERS: readonly Provider[] = [
  { provider: "openai", model: "openai/gpt-4.1", keyEnv: "OPENAI_API_KEY" },
  { provider: "anthropic", model: "anthropic/claude-sonnet-4-5", keyEnv: "ANTHROPIC_API_KEY" },
  { provider: "gemini", model: "gemini/gemini-2.5-pro", keyEnv: "GEMINI_API_KEY" },
  { provider: "openrouter", model: "openrouter/openai/gpt-4.1", keyEnv: "OPENROUTER_API_KEY" },
  { provider: "deepseek", model: "deepseek/deepseek-chat", keyEnv: "DEEPSEEK_API_KEY" },
  { provider: "xai", model: "xai/grok-4", keyEnv: "XAI_API_KEY" },
  { provider: "ollama", model: "ollama/llama3.1", keyEnv: null, note: "a local Ollama, no key" },
]

/** The menu entry for a server of one's own. */
export const COMPATIBLE = "openai-compatible"

/**
 * Ollama serves a small window unless `num_ctx` is raised (2048 to 8192 tokens depending on the
 * version), far below what the catalog says the model supports: dupin would overfill it.
 */
export const LOCAL_CONTEXT_WINDOW = 8192

/**
 * A server of one's own serves what its operator started it with (vLLM's --max-model-len), which
 * the catalog cannot know: without an answer, a common size is written for them to correct,
 * never the catalog's 128k guess.
 */
export const SERVER_CONTEXT_WINDOW = 32768

export function providerChoice(provider: Provider): InitChoice {
  return {
    model: provider.model,
    keyEnv: provider.keyEnv,
    apiBase: null,
    contextWindow: provider.provider === "ollama" ? LOCAL_CONTEXT_WINDOW : null,
  }
}

export type InitFlags = {
  provider?: string | undefined
  model?: string | undefined
  apiBase?: string | undefined
  apiKeyEnv?: string | undefined
  contextWindow?: number | undefined
}

/** The choice the flags make, or undefined when none was given (then the menu, or the default). */
export function choiceFromFlags(flags: InitFlags): InitChoice | undefined {
  const given = Object.values(flags).some((v) => v !== undefined)
  if (!given) return undefined
  if (flags.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.apiKeyEnv))
    throw new UsageError(`--api-key-env must be a variable name, not "${flags.apiKeyEnv}"`)
  if (flags.apiBase !== undefined) checkURL(flags.apiBase, "--api-base")
  const compatible = flags.provider === COMPATIBLE || (flags.provider === undefined && flags.apiBase)
  if (compatible) {
    if (!flags.apiBase) throw new UsageError(`--provider ${COMPATIBLE} needs --api-base URL`)
    if (!flags.model) throw new UsageError("--api-base needs --model NAME (the model the server serves)")
    return {
      model: flags.model.includes("/") ? flags.model : `openai/${flags.model}`,
      keyEnv: flags.apiKeyEnv ?? null,
      apiBase: flags.apiBase,
      contextWindow: flags.contextWindow ?? SERVER_CONTEXT_WINDOW,
    }
  }
  const provider = flags.provider
    ? PROVIDERS.find((p) => p.provider === flags.provider)
    : PROVIDERS.find((p) => flags.model?.startsWith(`${p.provider}/`))
  if (!provider) {
    const names = [...PROVIDERS.map((p) => p.provider), COMPATIBLE].join(", ")
    throw new UsageError(
      flags.provider
        ? `--provider must be one of ${names}, not "${flags.provider}"`
        : `--model ${flags.model ?? ""}: give --provider (${names}) or a provider/model id`,
    )
  }
  const base = providerChoice(provider)
  const model = flags.model
    ? flags.model.startsWith(`${provider.provider}/`)
      ? flags.model
      : `${provider.provider}/${flags.model}`
    : base.model
  return {
    model,
    keyEnv: flags.apiKeyEnv ?? (flags.apiBase ? null : base.keyEnv),
    apiBase: flags.apiBase ?? null,
    contextWindow: flags.contextWindow ?? base.contextWindow,
  }
}

export function checkURL(value: string, what: string): void {
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new UsageError(
      `${what} must be an http:// or https:// URL (e.g. http://127.0.0.1:8000/v1), not "${value}"`,
    )
}
