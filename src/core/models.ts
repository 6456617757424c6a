/** Public entry point `dupin/core/models`: result and event types. */
export type {
  FollowUpAction,
  Metadata,
  PendingApproval,
  StreamMessage,
  TokenCounts,
  Truncation,
} from "../agent/events.ts"
export type { LLMResult, ToolCallResult } from "../agent/result.ts"
export type { ChatMessage, ContentPart, ToolCall } from "../llm/types.ts"
