import { Type } from "@sinclair/typebox"
/** HolmesGPT's name for the toolset that holds TodoWrite, kept for config compatibility. */
import { PLANNING_TOOLSET, TODO_WRITE } from "../tool/core-names.ts"
import { ToolParameter } from "../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
import { Tool } from "../tool/tool.ts"
import { Toolset, ToolsetTag } from "../tool/toolset.ts"
import type { ToolsetFactory } from "./kind.ts"

export { PLANNING_TOOLSET }

type Todo = { id: string; content: string; status: "pending" | "in_progress" | "completed" }

const MARK: Record<Todo["status"], string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" }

/**
 * The planning tool. It keeps no state: the plan lives in the conversation, where the model
 * reads it back. Returning the rendered list gives the model (and the user watching the stream)
 * one canonical view of progress.
 */
class TodoWriteTool extends Tool {
  constructor() {
    super({
      name: TODO_WRITE,
      description:
        "Write or update the investigation plan. Send the whole list each time, with each item's status.",
      parameters: {
        todos: new ToolParameter({
          type: "array",
          description: "The complete task list.",
          items: {
            type: "object",
            properties: {
              id: { type: "string", description: "Short stable identifier" },
              content: { type: "string", description: "What to do" },
              status: { type: "string", enum: ["pending", "in_progress", "completed"] },
            },
          },
        }),
      },
    })
  }

  protected async invoke(params: Record<string, unknown>): Promise<StructuredToolResult> {
    const todos = params.todos as Todo[]
    const done = todos.filter((t) => t.status === "completed").length
    const lines = todos.map((t) => `${MARK[t.status]} ${t.id}. ${t.content}`)
    return new StructuredToolResult({
      status: ToolResultStatus.SUCCESS,
      data: `Plan updated (${done}/${todos.length} done):\n${lines.join("\n")}`,
    })
  }

  override getParameterizedOneLiner(params: Record<string, unknown>): string {
    const todos = Array.isArray(params.todos) ? params.todos.length : 0
    return `TodoWrite(${todos} items)`
  }
}

export function createPlanningToolset(): Toolset {
  return new Toolset({
    name: PLANNING_TOOLSET,
    description: "Planning tool for multi-step investigations",
    tools: [new TodoWriteTool()],
    tags: [ToolsetTag.CORE],
  })
}

/** The registry entry: on unless `toolsets.core_investigation.enabled: false`; takes no config. */
export const planningToolset: ToolsetFactory = {
  name: PLANNING_TOOLSET,
  configSchema: Type.Object({}),
  create(settings) {
    const toolset = createPlanningToolset()
    toolset.enabled = settings.enabled ?? true
    return toolset
  },
}
