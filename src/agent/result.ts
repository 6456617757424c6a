import type { ChatMessage } from "../llm/types.ts"
import type { StructuredToolResult } from "../tool/result.ts"
import type { Metadata } from "./events.ts"

/** One tool call of a request (spec `ToolCallResult`). */
export type ToolCallResult = {
  toolCallId: string
  toolName: string
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
