/**
 * Model facts: the built-in catalog, then config overrides, then the operator's global
 * OVERRIDE_MAX_* variables. Unknown models are not refused (any OpenAI-compatible server may
 * host anything); they get conservative defaults and one warning in the log.
 */
import { ConfigError } from "../errors.ts"
import { log } from "../log.ts"
import { CATALOG_DATA, type CatalogEntry } from "./catalog-data.ts"
import { type Env, parseModelId } from "./providers.ts"
import type { ModelInfo } from "./types.ts"

export type ModelOverrides = {
  contextWindow?: number | null
  maxOutputTokens?: number | null
  supportsVision?: boolean | null
  inputCostPerToken?: number | null
  outputCostPerToken?: number | null
}

export const UNKNOWN_MODEL_DEFAULTS = { contextWindow: 128_000, maxOutputTokens: 4_096 } as const

/** No output reserve is larger than this unless set explicitly (HolmesGPT's cap). */
export const MAX_OUTPUT_RESERVE = 64_000
/** Share of the window the output reserve may take unless set explicitly: one fifth. */
export const OUTPUT_RESERVE_WINDOW_DIVISOR = 5

/**
 * Tokens kept free for the answer. A limit set explicitly (modelList `max_output_tokens`,
 * OVERRIDE_MAX_OUTPUT_TOKEN) is used as given; a catalog or default limit is capped at a fifth of
 * the window and at 64000, as HolmesGPT does, so a small-window model (an 8B model on Ollama with
 * 8k) keeps most of its window for the question and the tools.
 */
export function outputReserve(contextWindow: number, limit: number | undefined, explicit: boolean): number {
  if (explicit && limit !== undefined) return limit
  const cap = Math.max(
    1,
    Math.floor(Math.min(contextWindow / OUTPUT_RESERVE_WINDOW_DIVISOR, MAX_OUTPUT_RESERVE)),
  )
  return Math.min(limit ?? UNKNOWN_MODEL_DEFAULTS.maxOutputTokens, cap)
}

const INDEX: ReadonlyMap<string, CatalogEntry> = buildIndex()

function buildIndex(): Map<string, CatalogEntry> {
  const index = new Map<string, CatalogEntry>()
  for (const [key, entry] of Object.entries(CATALOG_DATA)) {
    index.set(key.toLowerCase(), entry)
    for (const alias of entry.aliases ?? []) index.set(alias.toLowerCase(), entry)
  }
  return index
}

// Suffixes providers append to a model's release name; stripped one at a time, in this order,
// until a catalog key matches (gpt-4o-2024-08-06, claude-sonnet-4-5-20250929, mistral-large-2411,
// gemini-2.5-flash-preview-05-20, grok-4-0709, mistral-large-latest).
const SUFFIXES = [
  /-\d{4}-\d{2}-\d{2}$/,
  /-\d{8}$/,
  /-preview(-\d{2}-\d{2})?$/,
  /-\d{4}$/,
  /-latest$/,
  /-(instruct|chat)$/,
]

/** Names to try, most specific first: the whole model part, then its last path segment. */
export function catalogCandidates(model: string): string[] {
  const out: string[] = []
  const add = (name: string) => {
    if (name && !out.includes(name)) out.push(name)
  }
  const lower = model.toLowerCase()
  for (const base of [lower, lower.slice(lower.lastIndexOf("/") + 1)]) {
    add(base)
    // Ollama tags (`llama3.1:70b-instruct-q4_K_M`) pick a size or quantisation, not another model.
    let current = base.replace(/:[^/]*$/, "")
    add(current)
    for (let changed = true; changed; ) {
      changed = false
      for (const suffix of SUFFIXES) {
        const next = current.replace(suffix, "")
        if (next !== current && next) {
          current = next
          add(current)
          changed = true
          break
        }
      }
    }
  }
  // OpenRouter spells Anthropic versions with dots (claude-sonnet-4.5); Anthropic uses dashes.
  for (const name of [...out])
    if (name.includes("claude") && name.includes(".")) add(name.replaceAll(".", "-"))
  return out
}

/** The catalog entry for a `provider/model` id, or undefined. Provider-scoped keys win. */
export function lookupCatalog(id: string): CatalogEntry | undefined {
  const { provider, model } = parseModelId(id)
  for (const name of catalogCandidates(model)) {
    const entry = INDEX.get(`${provider}/${name}`) ?? INDEX.get(name)
    if (entry) return entry
  }
  return undefined
}

const warnedUnknown = new Set<string>()

/**
 * Facts for a model id. Precedence: OVERRIDE_MAX_CONTENT_SIZE / OVERRIDE_MAX_OUTPUT_TOKEN (an
 * operator's blanket knob, as in HolmesGPT), then the per-model config overrides, then the catalog.
 */
export function resolveModelInfo(id: string, overrides: ModelOverrides = {}, env: Env = {}): ModelInfo {
  const { provider, model } = parseModelId(id)
  const fullId = `${provider}/${model}`
  const entry = lookupCatalog(fullId)
  const envWindow = positiveInt(env, "OVERRIDE_MAX_CONTENT_SIZE")
  const envOutput = positiveInt(env, "OVERRIDE_MAX_OUTPUT_TOKEN")
  const contextWindow = envWindow ?? overrides.contextWindow ?? entry?.window
  const explicitOutput = envOutput ?? overrides.maxOutputTokens ?? undefined
  const window = contextWindow ?? UNKNOWN_MODEL_DEFAULTS.contextWindow
  const maxOutputTokens = outputReserve(window, explicitOutput ?? entry?.output, explicitOutput !== undefined)
  if (maxOutputTokens >= window) {
    const key = envOutput !== undefined ? "OVERRIDE_MAX_OUTPUT_TOKEN" : "max_output_tokens (modelList)"
    throw new ConfigError(
      `${key} = ${maxOutputTokens} leaves no room for the prompt in the ${window}-token context window of ${fullId}: lower it (a fifth of the window, ${Math.floor(window / OUTPUT_RESERVE_WINDOW_DIVISOR)}, is what dupin reserves when it is not set) or raise context_window.`,
    )
  }

  // An operator who set the window for an unknown model has already dealt with it.
  if (!entry && contextWindow === undefined && !warnedUnknown.has(fullId)) {
    warnedUnknown.add(fullId)
    log.warn(
      "Model not in the built-in catalog; using defaults. Set context_window in the config to silence this.",
      {
        model: fullId,
        context_window: UNKNOWN_MODEL_DEFAULTS.contextWindow,
        max_output_tokens: UNKNOWN_MODEL_DEFAULTS.maxOutputTokens,
      },
    )
  }

  return {
    id: fullId,
    provider,
    contextWindow: window,
    maxOutputTokens,
    supportsVision: overrides.supportsVision ?? entry?.vision ?? true,
    inputCostPerToken: overrides.inputCostPerToken ?? (entry ? entry.inputPrice / 1_000_000 : 0),
    outputCostPerToken: overrides.outputCostPerToken ?? (entry ? entry.outputPrice / 1_000_000 : 0),
    known: entry !== undefined,
  }
}

function positiveInt(env: Env, name: string): number | undefined {
  const raw = env[name]?.trim()
  if (!raw) return undefined
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) {
    throw new ConfigError(`${name} must be a positive whole number of tokens, got "${raw}".`)
  }
  return Number(raw)
}
