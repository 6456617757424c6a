/**
 * The entry point the rest of dupin uses to get a model from config values: provider endpoint,
 * catalog facts and the client, resolved once.
 */
import { type ModelOverrides, resolveModelInfo } from "./catalog.ts"
import { OpenAIChatModel } from "./openai-model.ts"
import { type Env, resolveEndpoint } from "./providers.ts"
import type { ChatModel } from "./types.ts"

export type CreateChatModelOptions = {
  /** `provider/model` id; a bare id means openai. */
  id: string
  /** Display name (the modelList key); defaults to the id. */
  name?: string
  apiKey?: string | null
  apiBase?: string | null
  apiVersion?: string | null
  temperature?: number | null
  overrides?: ModelOverrides
  /** The environment, as read by `src/config/`. */
  env: Env
  timeoutMs?: number
  maxRetries?: number
  retryBaseDelayMs?: number
  /** Other secrets of the process (auth token, approval secret) to keep out of error texts. */
  secrets?: readonly string[]
}

/** Throws ConfigError for an unknown provider, a missing key or a missing Azure endpoint. */
export function createChatModel(options: CreateChatModelOptions): ChatModel {
  const endpoint = resolveEndpoint(
    { id: options.id, apiKey: options.apiKey, apiBase: options.apiBase, apiVersion: options.apiVersion },
    options.env,
  )
  const info = resolveModelInfo(endpoint.id, options.overrides, options.env)
  return new OpenAIChatModel({
    name: options.name ?? options.id,
    info,
    apiKey: endpoint.apiKey,
    baseURL: endpoint.baseURL,
    baseURLFrom: endpoint.baseURLFrom,
    apiVersion: endpoint.apiVersion,
    temperature: options.temperature ?? undefined,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs,
    ...(options.secrets ? { secrets: options.secrets } : {}),
  })
}
