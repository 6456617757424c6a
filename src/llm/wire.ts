/**
 * Translation between dupin's chat types and the provider wire body. Outgoing, internal markers
 * are stripped (CONTRACT §5: "internal markers are never sent to a provider"); incoming, the reply
 * is validated by hand because OpenAI-compatible servers vary in what they actually return.
 */
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions"
import { ModelError } from "../errors.ts"
import { isRecord } from "../is-record.ts"
import type { ChatMessage, Completion, CompletionRequest, ContentPart, ToolCall, Usage } from "./types.ts"
import { uniqueCallIds } from "./unique-call-ids.ts"

/**
 * OpenAI reasoning models (o-series, gpt-5 except its chat variant) reject `max_tokens` and any
 * temperature but the default.
 */
export function isOpenAIReasoningModel(provider: string, model: string): boolean {
  if (provider !== "openai" && provider !== "azure") return false
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase()
  return /^o\d/.test(name) || (/^gpt-5/.test(name) && !name.includes("chat"))
}

export type WireOptions = { provider: string; model: string; temperature?: number }

export function toWireRequest(
  request: CompletionRequest,
  options: WireOptions,
): ChatCompletionCreateParamsNonStreaming {
  const reasoningModel = isOpenAIReasoningModel(options.provider, options.model)
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: options.model,
    messages: request.messages.flatMap(toWireMessage),
  }
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({ type: "function", function: tool.function }))
    // Providers reject tool_choice without tools, so it only travels with them.
    if (request.toolChoice) body.tool_choice = request.toolChoice
  }
  if (request.responseFormat) body.response_format = request.responseFormat
  const temperature = request.temperature ?? options.temperature
  if (temperature !== undefined && !reasoningModel) body.temperature = temperature
  if (request.maxOutputTokens !== undefined) {
    if (reasoningModel) body.max_completion_tokens = request.maxOutputTokens
    else body.max_tokens = request.maxOutputTokens
  }
  return body
}

function toWireMessage(message: ChatMessage): ChatCompletionMessageParam[] {
  switch (message.role) {
    case "system":
      // The returned history always starts with a system message, empty when no prompt section is
      // enabled; several providers reject an empty system message.
      return message.content.trim() ? [{ role: "system", content: message.content }] : []
    case "user":
      return [
        {
          role: "user",
          content: typeof message.content === "string" ? message.content : message.content.map(toWirePart),
        },
      ]
    case "assistant": {
      const out: ChatCompletionMessageParam = { role: "assistant", content: message.content }
      if (message.tool_calls?.length) {
        out.tool_calls = message.tool_calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: call.function.arguments },
        }))
      }
      return [out]
    }
    case "tool":
      return [{ role: "tool", tool_call_id: message.tool_call_id, content: message.content }]
    default: {
      const unexpected: never = message
      throw new Error(`Unknown message role in ${JSON.stringify(unexpected)}`)
    }
  }
}

function toWirePart(part: ContentPart): ChatCompletionContentPart {
  if (part.type === "text") return { type: "text", text: part.text }
  const image: { url: string; detail?: "low" | "high" | "auto" } = { url: part.image_url.url }
  if (part.image_url.detail) image.detail = part.image_url.detail
  return { type: "image_url", image_url: image }
}

type WireToolCall = { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } }
type WireMessage = {
  content?: unknown
  reasoning_content?: unknown
  reasoning?: unknown
  tool_calls?: unknown
}
type WireUsage = { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown }

/** Maps a provider reply; a reply without a usable first choice is an `invalid_response`. */
export function fromWireResponse(response: unknown, modelId: string): Completion {
  const choices = isRecord(response) ? response.choices : undefined
  const choice = Array.isArray(choices) ? choices[0] : undefined
  if (!isRecord(choice) || !isRecord(choice.message)) {
    throw new ModelError(`Model ${modelId} returned a response without choices.`, "invalid_response")
  }
  const message = choice.message as WireMessage
  const reasoning = stringOr(message.reasoning_content) ?? stringOr(message.reasoning)
  return {
    content: stringOr(message.content) ?? null,
    reasoning: reasoning ?? null,
    toolCalls: uniqueCallIds(Array.isArray(message.tool_calls) ? message.tool_calls.flatMap(toToolCall) : []),
    finishReason: stringOr(choice.finish_reason) ?? null,
    usage: toUsage(isRecord(response) ? response.usage : undefined),
  }
}

let generatedIds = 0

function toToolCall(raw: unknown): ToolCall[] {
  if (!isRecord(raw)) return []
  const call = raw as WireToolCall
  // Custom (non-function) tool calls are not something dupin offers; drop them.
  if (call.type !== undefined && call.type !== "function") return []
  const name = stringOr(call.function?.name)
  if (!name) return []
  const args = call.function?.arguments
  return [
    {
      // Some OpenAI-compatible servers omit ids; the tool result must still pair with its call.
      id: stringOr(call.id) || `call_dupin_${Date.now().toString(36)}_${++generatedIds}`,
      type: "function",
      function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) },
    },
  ]
}

function toUsage(raw: unknown): Usage {
  const usage = (isRecord(raw) ? raw : {}) as WireUsage
  const prompt = count(usage.prompt_tokens)
  const completion = count(usage.completion_tokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count(usage.total_tokens) || prompt + completion,
  }
}

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0
const stringOr = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
