import type {
  FollowUpAction,
  Metadata,
  PendingApproval,
  StreamMessage,
  ToolResultObject,
} from "../agent/events.ts"
import type { ChatMessage } from "../llm/types.ts"

/** The non-stream response body (spec "Non-streaming chat response body" + CONTRACT §5). */
export type ChatResponseBody = {
  analysis: string | null
  conversation_history: ChatMessage[]
  tool_calls: Array<{
    tool_call_id: string
    tool_name: string
    description: string
    result: ToolResultObject
  }>
  follow_up_actions: FollowUpAction[] | null
  metadata: Metadata
  requires_approval?: true
  pending_approvals?: PendingApproval[]
}

/**
 * Drains a run into the JSON body. A run that pauses for approval ends like the stream does:
 * `analysis: null`, `requires_approval`, `pending_approvals` and the history to send back.
 * Calls still waiting for a decision are in `pending_approvals`, not in `tool_calls`.
 */
export async function collectResponse(
  events: AsyncIterable<StreamMessage>,
  observe?: (message: StreamMessage) => void,
): Promise<ChatResponseBody> {
  const toolCalls: ChatResponseBody["tool_calls"] = []
  for await (const message of events) {
    observe?.(message)
    switch (message.event) {
      case "tool_calling_result":
        if (message.data.result.status === "approval_required") break
        toolCalls.push({
          tool_call_id: message.data.tool_call_id,
          tool_name: message.data.name,
          description: message.data.description,
          result: message.data.result,
        })
        break
      case "ai_answer_end":
        return {
          analysis: message.data.analysis,
          conversation_history: message.data.conversation_history,
          tool_calls: toolCalls,
          follow_up_actions: message.data.follow_up_actions,
          metadata: message.data.metadata,
        }
      case "approval_required":
        return {
          analysis: null,
          conversation_history: message.data.conversation_history,
          tool_calls: toolCalls,
          follow_up_actions: message.data.follow_up_actions,
          metadata: message.data.metadata,
          requires_approval: true,
          pending_approvals: message.data.pending_approvals,
        }
      default:
        break
    }
  }
  // runAgent always ends with one of the two events above or throws; anything else is a bug.
  throw new Error("The agent run ended without an answer or an approval request.")
}
