import { expect, test } from "bun:test"
import { ToolParameter } from "../../src/tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../../src/tool/result.ts"
import { Tool, type ToolContext } from "../../src/tool/tool.ts"

class LogsTool extends Tool {
  constructor() {
    super({
      name: "fetch_logs",
      description: "Logs of a pod",
      parameters: {
        pod: new ToolParameter({ type: "string", description: "pod name" }),
        lines: new ToolParameter({ type: "integer", required: false }),
        level: new ToolParameter({ type: "string", required: false, enum: ["info", "error"] }),
      },
    })
  }
  protected async invoke(params: Record<string, unknown>, _context: ToolContext) {
    return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: String(params.pod), params })
  }
}

test("an invalid-arguments error shows the tool's parameters, so a model that never saw the definition can correct its call", () => {
  const result = new LogsTool().validate({ lines: "ten" })
  expect(result.ok).toBe(false)
  if (result.ok) return
  expect(result.error).toStartWith("Invalid arguments for fetch_logs: ")
  expect(result.error).toContain(
    "Parameters: pod (string, required), lines (integer, optional), level (string, optional, one of info|error).",
  )
})
