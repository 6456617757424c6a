/**
 * The chat wire shapes the rest of dupin speaks. They mirror the OpenAI chat format (CONTRACT §5)
 * so histories pass through the API unchanged, but they are our own types: only `src/llm/`
 * imports `openai`.
 */

export type TextPart = { type: "text"; text: string }
export type ImagePart = {
  type: "image_url"
  image_url: { url: string; detail?: "low" | "high" | "auto"; format?: string }
}
export type ContentPart = TextPart | ImagePart

export type ToolCall = {
  id: string
  type: "function"
  function: { name: string; arguments: string }
  /** Set by the approval flow on a call that waits for a decision (CONTRACT §5). */
  pending_approval?: { signature: string }
}

export type SystemMessage = { role: "system"; content: string }
export type UserMessage = { role: "user"; content: string | ContentPart[] }
export type AssistantMessage = {
  role: "assistant"
  content: string | null
  tool_calls?: ToolCall[]
  /** Reasoning text some providers return next to the answer; never sent back. */
  reasoning?: string | null
}
export type ToolMessage = { role: "tool"; tool_call_id: string; content: string; name?: string }

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/** A function tool as the provider sees it. `parameters` is a JSON Schema object. */
export type ToolSchema = {
  type: "function"
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

export type ResponseFormat = {
  type: "json_schema"
  json_schema: { name: string; strict: boolean; schema: Record<string, unknown> }
}

export type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number }

export type CompletionRequest = {
  messages: ChatMessage[]
  tools?: ToolSchema[]
  toolChoice?: "auto" | "none"
  responseFormat?: ResponseFormat
  temperature?: number
  maxOutputTokens?: number
}

export type Completion = {
  content: string | null
  reasoning: string | null
  toolCalls: ToolCall[]
  finishReason: string | null
  usage: Usage
}

/** Receives the answer text as the provider writes it, piece by piece (a streamed call). */
export type TextListener = (text: string) => void

/**
 * What the loop needs from a model: one completion, abortable. Tests inject scripted ones. With
 * `onText` the call streams and reports the answer text as it arrives; the completion it resolves
 * to is the same as without.
 */
export interface ChatModel {
  readonly name: string
  readonly info: ModelInfo
  complete(request: CompletionRequest, signal?: AbortSignal, onText?: TextListener): Promise<Completion>
}

/** Catalog facts about a model, after config overrides. */
export type ModelInfo = {
  /** The `provider/model` id. */
  id: string
  provider: string
  contextWindow: number
  maxOutputTokens: number
  supportsVision: boolean
  inputCostPerToken: number
  outputCostPerToken: number
  /** False when the catalog did not know the model and defaults were used. */
  known: boolean
}
