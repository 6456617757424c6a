import type { FollowUpAction, Metadata, StreamMessage, ToolResultObject } from "../../agent/events.ts"
import type { ChatMessage } from "../../llm/types.ts"

/** One `tool_calls` item of the non-stream API response (CONTRACT §5). */
export type ToolCallItem = {
  tool_call_id: string
  tool_name: string
  description: string
  result: ToolResultObject
}

/** The non-stream `POST /api/chat` response body, which `ask --json` prints. */
export type ResponseBody = {
  analysis: string
  conversation_history: ChatMessage[]
  tool_calls: ToolCallItem[]
  follow_up_actions: FollowUpAction[] | null
  metadata: Metadata
}

type AnswerEnd = Extract<StreamMessage, { event: "ai_answer_end" }>["data"]
type ToolResultEvent = Extract<StreamMessage, { event: "tool_calling_result" }>["data"]

export function toolCallItem(data: ToolResultEvent): ToolCallItem {
  return {
    tool_call_id: data.tool_call_id,
    tool_name: data.name,
    description: data.description,
    result: data.result,
  }
}

export function responseBody(end: AnswerEnd, toolCalls: ToolCallItem[]): ResponseBody {
  return {
    analysis: end.analysis,
    conversation_history: end.conversation_history,
    tool_calls: toolCalls,
    follow_up_actions: end.follow_up_actions,
    metadata: end.metadata,
  }
}
