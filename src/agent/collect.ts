import { ModelError } from "../errors.ts"
import type { ChatMessage } from "../llm/types.ts"
import type {
  EngineEvent,
  FollowUpAction,
  Metadata,
  PendingApproval,
  StopReason,
  ToolResultObject,
} from "./events.ts"

/** One executed (or denied) tool call of a run, as the events reported it. */
export type CollectedCall = {
  tool_call_id: string
  tool_name: string
  description: string
  result: ToolResultObject
}

/**
 * A finished run, neutral to any face: `LLMResult` (library) and the chat response body (HTTP,
 * `ask --json`) are mappings of it. `answer` is null when the run paused for approval.
 */
export type RunOutcome = {
  stop: StopReason
  answer: string | null
  history: ChatMessage[]
  /** In the order they finished; calls still waiting for a decision are in `pendingApprovals`. */
  toolCalls: CollectedCall[]
  pendingApprovals: PendingApproval[]
  followUpActions: FollowUpAction[] | null
  metadata: Metadata
}

/**
 * The one drain of a run's events. `observe` sees every event as it passes (progress lines,
 * metrics). Provider and abort failures propagate as the run threw them.
 */
export async function collectRun(
  events: AsyncGenerator<EngineEvent, StopReason>,
  observe?: (message: EngineEvent) => void,
): Promise<RunOutcome> {
  const toolCalls: CollectedCall[] = []
  let closing: Closing | undefined
  let stop: StopReason | undefined
  // for-await over a delegating wrapper: an early exit (a throw here or in observe) still returns
  // the run, which releases its resources, and the wrapper keeps the loop's return value.
  const tapped = (async function* () {
    stop = yield* events
  })()
  for await (const message of tapped) {
    observe?.(message)
    switch (message.event) {
      case "tool_calling_result": {
        const { data } = message
        // A call waiting for a decision has not run: it is reported in pendingApprovals.
        if (data.result.status === "approval_required") break
        toolCalls.push({
          tool_call_id: data.tool_call_id,
          tool_name: data.name,
          description: data.description,
          result: data.result,
        })
        break
      }
      case "ai_answer_end":
      case "approval_required":
        closing = message
        break
      case "start_tool_calling":
      case "ai_message":
      case "ai_message_delta":
      case "token_count":
      case "conversation_history_compaction_start":
      case "conversation_history_compacted":
        break
      default: {
        const unknown: never = message
        throw new Error(`Unhandled event ${JSON.stringify(unknown)}`)
      }
    }
  }
  if (!closing || !stop) throw new ModelError("The conversation ended without an answer.", "invalid_response")
  return outcome(stop, closing, toolCalls)
}

type Closing = Extract<EngineEvent, { event: "ai_answer_end" | "approval_required" }>

function outcome(stop: StopReason, closing: Closing, toolCalls: CollectedCall[]): RunOutcome {
  const { data } = closing
  return {
    stop,
    answer: closing.event === "ai_answer_end" ? closing.data.analysis : null,
    history: data.conversation_history,
    toolCalls,
    pendingApprovals: closing.event === "approval_required" ? closing.data.pending_approvals : [],
    followUpActions: data.follow_up_actions,
    metadata: data.metadata,
  }
}
