/**
 * The bash toolset's public surface: the tool, its grammar and its policy (tests, the library).
 * The registry takes the toolset from toolset.ts, which does not load the policy.
 */
export { BashTool, type BashToolOptions } from "./bash-tool.ts"
export { type ParsedCommand, parseCommand } from "./parse.ts"
export { type BashPolicyConfig, classifyPipeline, classifyStage } from "./policy.ts"
export { BashConfigSchema, bashToolset, createBashToolset } from "./toolset.ts"
export type { Decision, Verdict } from "./verdict.ts"
