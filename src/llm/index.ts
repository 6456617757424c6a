/** The LLM layer's public surface; the rest of dupin imports from here, never from `openai`. */
export {
  catalogCandidates,
  lookupCatalog,
  type ModelOverrides,
  resolveModelInfo,
  UNKNOWN_MODEL_DEFAULTS,
} from "./catalog.ts"
export { costOf } from "./cost.ts"
export { type CreateChatModelOptions, createChatModel } from "./factory.ts"
export { OpenAIChatModel, type OpenAIChatModelOptions } from "./openai-model.ts"
export {
  type Endpoint,
  type Env,
  PROVIDERS,
  type ProviderName,
  type ProviderSpec,
  parseModelId,
  resolveEndpoint,
} from "./providers.ts"
export { type EncodingName, encodingForModel, TokenCounter } from "./tokens.ts"
export type * from "./types.ts"
