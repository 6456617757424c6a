import type { ChatMessage } from "../llm/types.ts"
import type { RunOutcome } from "./collect.ts"
import type { FollowUpAction, Metadata, PendingApproval, ToolResultObject } from "./events.ts"

/**
 * The non-stream chat response body (spec "Non-streaming chat response body" + CONTRACT §5). A
 * wire format like the events, so it lives with them: `POST /api/chat` returns it and
 * `dupin ask --json` prints it.
 */
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
 * A run that paused for approval ends like the stream does: `analysis: null`, `requires_approval`,
 * `pending_approvals` and the history to send back.
 */
export function chatResponseBody(outcome: RunOutcome): ChatResponseBody {
  const body: ChatResponseBody = {
    analysis: outcome.answer,
    conversation_history: outcome.history,
    tool_calls: outcome.toolCalls,
    follow_up_actions: outcome.followUpActions,
    metadata: outcome.metadata,
  }
  if (outcome.stop !== "approval") return body
  return { ...body, requires_approval: true, pending_approvals: outcome.pendingApprovals }
}
