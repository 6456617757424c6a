/** Public entry point `dupin/core/tool_calling_llm`: the engine door and its run options. */
export type { ApprovalCallback, ApprovalDecision, ApprovalMode } from "../agent/approval.ts"
export type { ToolDecision } from "../agent/decisions.ts"
export {
  type CallOptions,
  type RunOptions,
  ToolCallingLLM,
  type ToolCallingLLMInit,
} from "../agent/tool-calling-llm.ts"
