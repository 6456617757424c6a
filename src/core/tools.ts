/** Public entry point `dupin/core/tools`: everything needed to write a toolset as classes. */
export { ToolExecutor } from "../tool/executor.ts"
export { ToolParameter, type ToolParameterInit, type ToolParameterType } from "../tool/parameter.ts"
export {
  CallablePrerequisite,
  EnvPrerequisite,
  type Prerequisite,
  type PrerequisiteOutcome,
  StaticPrerequisite,
} from "../tool/prerequisite.ts"
export { StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
export { Tool, type ToolContext, type ToolInit, type ToolLimits } from "../tool/tool.ts"
export { Toolset, type ToolsetInit, type ToolsetStatus, ToolsetTag } from "../tool/toolset.ts"
