/** Public entry point `dupin/core/models`: result and event types. */

export type { CollectedCall, RunOutcome } from "../agent/collect.ts"
export type {
  FollowUpAction,
  Metadata,
  PendingApproval,
  StopReason,
  StreamMessage,
  TokenCounts,
  Truncation,
} from "../agent/events.ts"
export type { LLMResult, ToolCallResult } from "../agent/result.ts"
export type { ChatMessage, ContentPart, ToolCall } from "../llm/types.ts"
