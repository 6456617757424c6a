/** Public entry point `dupin/core/models`: result and event types. */

export type { CollectedCall, RunOutcome } from "../agent/collect.ts"
export type {
  FollowUpAction,
  Metadata,
  PendingApproval,
  StopReason,
  StreamMessage,
} from "../agent/events.ts"
export type { LLMResult, ToolCallResult } from "../agent/result.ts"
export type { Truncation } from "../context/report.ts"
export type { TokenCounts } from "../llm/tokens.ts"
export type { ChatMessage, ContentPart, ToolCall } from "../llm/types.ts"
