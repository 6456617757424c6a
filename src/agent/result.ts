import type { ChatMessage } from "../llm/types.ts"
import { StructuredToolResult, type ToolResultStatus } from "../tool/result.ts"
import type { RunOutcome } from "./collect.ts"
import type { Metadata } from "./events.ts"

/**
 * One tool call of a request (spec `ToolCallResult`). The library's camelCase names, and the wire
 * names as well: the events (`event.data.tool_name`) and the approval callback's `pending` use
 * those, so code written against either reads a `toolCalls` element the same way.
 */
export type ToolCallResult = {
  toolCallId: string
  toolName: string
  /** Same as `toolCallId`: the name events, `pending` and the HTTP API use. */
  tool_call_id: string
  /** Same as `toolName`: the name events, `pending` and the HTTP API use. */
  tool_name: string
  description: string
  result: StructuredToolResult
}

/** What `ToolCallingLLM.call` returns (spec `LLMResult`). */
export type LLMResult = {
  result: string | null
  toolCalls: ToolCallResult[] | null
  /** The full history; append a user message and call again for a follow-up. */
  messages: ChatMessage[] | null
  numLlmCalls: number | null
  totalCost: number
  totalTokens: number
  promptTokens: number
  completionTokens: number
  metadata: Metadata | undefined
}

/** The library's view of a finished run. A run paused for approval has `result: null`. */
export function llmResult(outcome: RunOutcome): LLMResult {
  const { costs } = outcome.metadata
  return {
    result: outcome.answer,
    toolCalls: outcome.toolCalls.map((call) => ({
      toolCallId: call.tool_call_id,
      toolName: call.tool_name,
      tool_call_id: call.tool_call_id,
      tool_name: call.tool_name,
      description: call.description,
      result: new StructuredToolResult({
        status: call.result.status as ToolResultStatus,
        data: call.result.data,
        error: call.result.error,
        params: call.result.params,
      }),
    })),
    messages: outcome.history,
    numLlmCalls: costs.num_llm_calls,
    totalCost: costs.total_cost,
    totalTokens: costs.total_tokens,
    promptTokens: costs.prompt_tokens,
    completionTokens: costs.completion_tokens,
    metadata: outcome.metadata,
  }
}
