import type { CompactionEvent, CompactionMetadata, Truncation } from "../context/report.ts"
import type { TokenCounts } from "../llm/tokens.ts"
import type { ChatMessage, Usage } from "../llm/types.ts"

export type Costs = {
  total_cost: number
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  num_llm_calls: number
}

export type Metadata = {
  usage: Usage
  tokens: TokenCounts
  max_tokens: number
  max_output_tokens: number
  truncations?: Truncation[]
  costs: Costs
  /** Present when the history was compacted in this request: how often, and the latest figures. */
  compaction?: { count: number; last: CompactionMetadata }
  /** Present when tool definitions passed their budget: tools held back now, tools loaded by search_tools. */
  deferred_tools?: { deferred: number; loaded_by_search: string[] }
}

export type ToolResultObject = {
  status: string
  data: unknown
  error: string | null
  params: Record<string, unknown>
}

export type PendingApproval = {
  tool_call_id: string
  tool_name: string
  description: string
  params: Record<string, unknown>
}

/** A call to a client-executed tool the run paused for (HolmesGPT `pending_frontend_tool_calls`). */
export type PendingFrontendToolCall = {
  tool_call_id: string
  tool_name: string
  arguments: Record<string, unknown>
}

export type FollowUpAction = {
  id: string
  action_label: string
  pre_action_notification_text: string
  prompt: string
}

/**
 * What the engine yields: the spec's stream events but `error`. A run that fails throws; only a
 * face turns that into an `error` event (the SSE stream's last frame), so consumers of the engine
 * need no branch for it.
 */
export type EngineEvent =
  | { event: "start_tool_calling"; data: { tool_name: string; id: string } }
  | {
      event: "tool_calling_result"
      data: {
        tool_call_id: string
        role: "tool"
        description: string
        name: string
        result: ToolResultObject
      }
    }
  | { event: "ai_message"; data: { content: string | null; reasoning: string | null; metadata: Metadata } }
  /**
   * Text the model is writing, as it arrives; only on a run asked for it (`streamText`, the API's
   * `stream_text`, CONTRACT §9). The deltas of one model call add up to its content: the answer
   * (`ai_answer_end.analysis`), or the notes of an `ai_message` when the call asked for tools.
   */
  | { event: "ai_message_delta"; data: { content: string } }
  | {
      event: "ai_answer_end"
      data: {
        analysis: string
        conversation_history: ChatMessage[]
        follow_up_actions: FollowUpAction[] | null
        metadata: Metadata
      }
    }
  | {
      event: "approval_required"
      data: {
        content: null
        conversation_history: ChatMessage[]
        follow_up_actions: FollowUpAction[] | null
        requires_approval: true
        pending_approvals: PendingApproval[]
        /** Present when the run offered frontend tools: the calls the client must execute. */
        pending_frontend_tool_calls?: PendingFrontendToolCall[]
        metadata: Metadata
      }
    }
  | { event: "token_count"; data: { metadata: Metadata } }
  | CompactionEvent

/** The spec's stream events. The HTTP stream is exactly these, framed as SSE. */
export type StreamMessage =
  | EngineEvent
  | { event: "error"; data: { description: string; error_code: number; msg: string; success: false } }

export type StreamEventName = StreamMessage["event"]

/**
 * Why a run ended: the loop's return value, never on the wire. `max_steps`: the answer was forced
 * by the step limit (the last step is called without tools). Aborts and provider failures throw.
 */
export type StopReason = "answer" | "max_steps" | "approval"
