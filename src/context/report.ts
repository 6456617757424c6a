import type { ChatMessage, Usage } from "../llm/types.ts"

/**
 * What the context window did, as data: the window returns it and the loop records it, so the
 * window never reaches into the run's accounting. The event shapes are the spec's; `agent/events.ts`
 * includes them in its union.
 */

/** A tool result cut to fit (spec "truncations"). */
export type Truncation = {
  tool_call_id: string
  start_index: 0
  end_index: number
  tool_name: string
  original_token_count: number
}

export type CompactionStartMetadata = {
  initial_tokens: number
  num_messages: number
  max_context_size: number
  threshold_pct: number
}

export type CompactionMetadata = {
  initial_tokens: number
  compacted_tokens: number
  compression_ratio_pct: number
  num_messages_before: number
  num_messages_after: number
  max_context_size: number
  threshold_pct: number
  compaction_cost?: {
    total_cost: number
    prompt_tokens: number
    completion_tokens: number
    total_tokens: number
  }
}

/** The two events a compaction yields, the start before the (slow) summarising call. */
export type CompactionEvent =
  | {
      event: "conversation_history_compaction_start"
      data: { content: string; metadata: CompactionStartMetadata }
    }
  | {
      event: "conversation_history_compacted"
      data: {
        content: string
        compaction_summary: string | null
        messages: ChatMessage[]
        metadata: CompactionMetadata
      }
    }

/** A compaction's figures and the provider usage of its summarising call (for the run's totals). */
export type Compaction = { metadata: CompactionMetadata; usage: Usage }
