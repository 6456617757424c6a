/** Public entry point `dupin/core/tool_calling_llm`. */
export type { ApprovalCallback, ApprovalDecision } from "../agent/approval.ts"
export { type CallOptions, ToolCallingLLM, type ToolCallingLLMInit } from "../agent/tool-calling-llm.ts"
