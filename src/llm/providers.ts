/**
 * Model ids and provider endpoints. Ids are LiteLLM style `provider/model`; every provider below
 * speaks the OpenAI chat-completions wire format, so they differ only in URL, key and a few quirks
 * (Azure's deployment routing, Ollama needing no key).
 *
 * Nothing here reads `process.env`: callers pass the environment in (only `src/config/` reads it).
 */
import { ConfigError } from "../errors.ts"

export type Env = Record<string, string | undefined>

export type ProviderName =
  | "openai"
  | "azure"
  | "anthropic"
  | "gemini"
  | "ollama"
  | "openrouter"
  | "groq"
  | "mistral"
  | "deepseek"
  | "xai"

export type ProviderSpec = {
  name: ProviderName
  /** `null` when the provider has no public endpoint (Azure: every resource has its own). */
  defaultBaseURL: string | null
  /** `null` when the provider needs no key (a local Ollama). */
  keyEnv: string | null
  /** Checked in order; the first set one wins. */
  baseEnv: string[]
}

const spec = (
  name: ProviderName,
  defaultBaseURL: string | null,
  extraBaseEnv: string[] = [],
): ProviderSpec => {
  const upper = name.toUpperCase()
  return { name, defaultBaseURL, keyEnv: `${upper}_API_KEY`, baseEnv: [...extraBaseEnv, `${upper}_API_BASE`] }
}

export const PROVIDERS: Readonly<Record<ProviderName, ProviderSpec>> = {
  // OPENAI_BASE_URL is what the official SDKs read, so operators already have it set.
  openai: spec("openai", "https://api.openai.com/v1", ["OPENAI_BASE_URL"]),
  azure: spec("azure", null),
  anthropic: spec("anthropic", "https://api.anthropic.com/v1/"),
  gemini: spec("gemini", "https://generativelanguage.googleapis.com/v1beta/openai/"),
  ollama: { ...spec("ollama", "http://127.0.0.1:11434/v1"), keyEnv: null },
  openrouter: spec("openrouter", "https://openrouter.ai/api/v1"),
  groq: spec("groq", "https://api.groq.com/openai/v1"),
  mistral: spec("mistral", "https://api.mistral.ai/v1"),
  deepseek: spec("deepseek", "https://api.deepseek.com/v1"),
  xai: spec("xai", "https://api.x.ai/v1"),
}

/** Azure's GA chat-completions API version, used when neither config nor AZURE_API_VERSION set one. */
export const DEFAULT_AZURE_API_VERSION = "2024-10-21"

export type ParsedModelId = { provider: ProviderName; model: string }

function isProvider(name: string): name is ProviderName {
  return Object.hasOwn(PROVIDERS, name)
}

/**
 * Splits `provider/model`. A bare id means `openai`; the model part keeps any further slashes
 * (`openrouter/meta-llama/llama-3.1-70b` → openrouter, `meta-llama/llama-3.1-70b`).
 */
export function parseModelId(id: string): ParsedModelId {
  const trimmed = id.trim()
  if (!trimmed) throw new ConfigError("Empty model id: use provider/model, e.g. openai/gpt-4.1.")
  const slash = trimmed.indexOf("/")
  if (slash === -1) return { provider: "openai", model: trimmed }
  const prefix = trimmed.slice(0, slash).toLowerCase()
  const model = trimmed.slice(slash + 1)
  if (!isProvider(prefix)) {
    throw new ConfigError(
      `Unknown provider "${prefix}" in model id ${trimmed}: use one of ${Object.keys(PROVIDERS).join(", ")} ` +
        `(an OpenAI-compatible server is openai/<model> with api_base).`,
    )
  }
  if (!model) throw new ConfigError(`Model id ${trimmed} names no model after "${prefix}/".`)
  return { provider: prefix, model }
}

export type EndpointInput = {
  id: string
  apiKey?: string | null
  apiBase?: string | null
  apiVersion?: string | null
}

export type Endpoint = {
  id: string
  provider: ProviderName
  model: string
  /**
   * `null`: no key, and none needed (an OpenAI-compatible server at an `api_base` or base
   * variable the operator set, e.g. vLLM, llama.cpp, LM Studio): the call carries no Authorization.
   */
  apiKey: string | null
  baseURL: string
  /** What set `baseURL`: `api_base in the config`, the variable's name, or the provider's default. */
  baseURLFrom: string
  /** Azure only. */
  apiVersion?: string
}

const present = (value: string | null | undefined): string | undefined =>
  value !== undefined && value !== null && value.trim() !== "" ? value.trim() : undefined

/**
 * Where and how to call a model: explicit config values first, then the provider's environment
 * variables, then the provider default. A missing key or Azure endpoint is a ConfigError naming
 * what to set.
 */
export function resolveEndpoint(input: EndpointInput, env: Env): Endpoint {
  const { provider, model } = parseModelId(input.id)
  const providerSpec = PROVIDERS[provider]
  const id = `${provider}/${model}`

  const envName = providerSpec.baseEnv.find((name) => present(env[name]) !== undefined)
  const envBase = envName ? present(env[envName]) : undefined
  let baseURL = present(input.apiBase) ?? envBase ?? providerSpec.defaultBaseURL
  const baseURLFrom = present(input.apiBase)
    ? "api_base in the config"
    : envName
      ? envName
      : `the default for ${provider}`
  if (!baseURL) {
    throw new ConfigError(
      `No endpoint for model ${id}: set ${providerSpec.baseEnv.join(" or ")} or api_base in the config ` +
        `(e.g. https://<resource>.openai.azure.com/).`,
    )
  }
  // LiteLLM-style OLLAMA_API_BASE values are the bare server (http://host:11434); the
  // OpenAI-compatible routes live under /v1.
  if (provider === "ollama") baseURL = withV1Path(baseURL, baseURLFrom)
  checkURL(baseURL, id, baseURLFrom)

  const key = present(input.apiKey) ?? (providerSpec.keyEnv ? present(env[providerSpec.keyEnv]) : undefined)
  let apiKey: string | null
  if (key) apiKey = key
  else if (providerSpec.keyEnv === null)
    apiKey = present(env.OLLAMA_API_KEY) ?? "ollama" // the SDK refuses an empty key
  // A server the operator pointed dupin at may need no key (CONTRACT §4: vLLM, llama.cpp, LM
  // Studio); it answers 401 itself if it does. A provider's own endpoint, and Azure, always do.
  else if (provider !== "azure" && (present(input.apiBase) || envName)) apiKey = null
  else
    throw new ConfigError(
      `No API key for model ${id}: set ${providerSpec.keyEnv} or api_key in the config ` +
        `(a server that needs no key, such as vLLM or llama.cpp, is reached with api_base).`,
    )

  const endpoint: Endpoint = { id, provider, model, apiKey, baseURL, baseURLFrom }
  if (provider === "azure") {
    endpoint.apiVersion =
      present(input.apiVersion) ?? present(env.AZURE_API_VERSION) ?? DEFAULT_AZURE_API_VERSION
  }
  return endpoint
}

/** A base URL the client could never call is the operator's to fix: say which setting holds it. */
function checkURL(base: string, id: string, from: string): void {
  let url: URL | undefined
  try {
    url = new URL(base)
  } catch {
    url = undefined
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:") && url.hostname) return
  throw new ConfigError(
    `Invalid base URL "${withoutCredentials(base)}" for model ${id}, set by ${from}: expected http(s)://host[:port][/path], e.g. https://api.openai.com/v1.`,
  )
}

/**
 * A value that is not a usable URL, for a message (the CLI, the log, the unauthenticated
 * `/readyz`): user info and query, where keys travel, are cut by hand since the URL parser failed.
 */
function withoutCredentials(base: string): string {
  return base.replace(/\/\/[^/?#]*@/, "//[REDACTED]@").replace(/[?#].*$/s, "")
}

/** The base URL for messages: without credentials or query, which may carry a key. */
export function displayURL(base: string): string {
  try {
    const url = new URL(base)
    return `${url.protocol}//${url.host}${url.pathname}`
  } catch {
    return base
  }
}

function withV1Path(base: string, from: string): string {
  try {
    const url = new URL(base)
    if (url.pathname === "/" || url.pathname === "") return `${url.origin}/v1`
    return base
  } catch {
    throw new ConfigError(
      `Invalid Ollama endpoint ${base}, set by ${from}: expected a URL such as http://127.0.0.1:11434/v1.`,
    )
  }
}
