import { afterAll, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigError } from "../../src/errors.ts"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS, type Tool } from "../../src/tool/tool.ts"
import { buildToolsets, parseToolsetFile } from "../../src/toolset/loader.ts"

/** A custom toolset whose parameters carry awk and sed program texts, run by the real programs. */
const dir = mkdtempSync(join(tmpdir(), "dupin-program-parameter-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const yaml = (program: string, type = "string") => `
toolsets:
  demo/text:
    description: d
    tools:
      - name: columns
        description: d
        command: "printf 'a 1\\\\nb 2\\\\n' | awk {{ program }}"
        parameters:
          program: { type: ${type}, pattern: '^[\\s\\S]{1,400}$', program: ${program} }
      - name: edit
        description: d
        command: "printf 'a 1\\\\nb 2\\\\n' | sed {{ script }}"
        parameters:
          script: { type: string, pattern: '^[\\s\\S]{1,400}$', program: sed }
`

function tool(name: string): Tool {
  const [toolset] = buildToolsets(parseToolsetFile(yaml("awk"), "demo.yaml"))
  const found = toolset!.tools.find((t) => t.name === name)
  if (!found) throw new Error(`no tool ${name}`)
  return found
}

function run(t: Tool, params: Record<string, unknown>, approved = false) {
  return t.run(params, {
    signal: new AbortController().signal,
    toolCallId: "call-1",
    limits: DEFAULT_TOOL_LIMITS,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    approved,
  })
}

describe("the program key of a YAML parameter", () => {
  test("names one of jq, awk, sed, on a string parameter", () => {
    expect(() => parseToolsetFile(yaml("perl"), "demo.yaml")).toThrow(ConfigError)
    expect(() => parseToolsetFile(yaml("perl"), "demo.yaml")).toThrow("program: expected one of jq, awk, sed")
    expect(() => parseToolsetFile(yaml("awk", "integer"), "demo.yaml")).toThrow("only a string parameter")
  })

  test("a text inside the grammar runs without approval", async () => {
    const columns = tool("columns")
    expect(columns.requiresApproval({ program: "{print $1}" })).toBe(false)
    const r = await run(columns, { program: "{print $1}" })
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    expect(r.data).toBe("a\nb\n")
    const s = await run(tool("edit"), { script: "s/a/A/" })
    expect(s.data).toBe("A 1\nb 2\n")
  })

  test("a text outside it needs approval and does nothing without it", async () => {
    const marker = join(dir, "awk-marker")
    const program = `BEGIN{system("touch ${marker}")}`
    const columns = tool("columns")
    expect(columns.requiresApproval({ program })).toContain("system")
    const r = await run(columns, { program })
    expect(r.status).toBe(ToolResultStatus.APPROVAL_REQUIRED)
    expect(existsSync(marker)).toBe(false)
    const sedMarker = join(dir, "sed-marker")
    const s = await run(tool("edit"), { script: `:a;e touch ${sedMarker}` })
    expect(s.status).toBe(ToolResultStatus.APPROVAL_REQUIRED)
    expect(existsSync(sedMarker)).toBe(false)
    // Approved, the call runs as the human saw it.
    await run(columns, { program }, true)
    expect(existsSync(marker)).toBe(true)
  })

  test("an environment read is refused even approved", async () => {
    const columns = tool("columns")
    const program = 'BEGIN{print ENVIRON["PATH"]}'
    expect(columns.requiresApproval({ program })).toBe(false)
    const r = await run(columns, { program }, true)
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.error).toContain("environment")
    expect(r.data ?? "").not.toContain("/usr/bin")
  })
})
