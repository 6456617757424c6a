import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type StructuredToolResult, ToolResultStatus } from "../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS, Tool, type ToolContext } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import { BashTool } from "../../src/toolset/bash/index.ts"
import { YamlTool } from "../../src/toolset/yaml-tool.ts"
import { liveInGroup } from "../support/live-processes.ts"
import { waitFor, waitForPid } from "../support/wait.ts"

const dir = mkdtempSync(join(tmpdir(), "dupin-timeout-owner-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/**
 * A command that prints evidence, records its group, then hangs with a background child: the
 * shape of a real hang (`kubectl logs -f`), where the last lines printed are what the user needs.
 */
function hangingScript(pidFile: string): string {
  return `echo "last words before the hang"; echo $$ > ${pidFile}; sleep 1000 & sleep 1000`
}

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    toolCallId: "call-1",
    limits: { ...DEFAULT_TOOL_LIMITS, timeoutDefault: 1 },
    env: buildToolEnv(process.env),
    ...overrides,
  }
}

/** Runs `tool` to its timeout; returns the result and the group the command ran in. */
async function runToTimeout(tool: Tool, params: Record<string, unknown>, pidFile: string, approved = false) {
  const running = tool.run(params, context({ approved }))
  const pgid = await waitForPid(pidFile)
  expect(liveInGroup(pgid).length).toBeGreaterThan(0)
  return { result: await running, pgid }
}

async function expectGroupGone(pgid: number): Promise<void> {
  // The kill is sent before the result returns; the kernel may take a moment to reap.
  await waitFor(() => liveInGroup(pgid).length === 0, { what: `process group ${pgid} to end` })
  expect(liveInGroup(pgid)).toEqual([])
}

describe("a subprocess tool owns its timeout", () => {
  test("a YAML tool that times out returns what it printed with the timeout error, and its group is gone", async () => {
    const pidFile = join(dir, "yaml.pid")
    const tool = new YamlTool({
      name: "hangs",
      description: "d",
      command: hangingScript(pidFile),
      timeout: 1,
    })
    const { result, pgid } = await runToTimeout(tool, {}, pidFile)
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("timed out after 1 s")
    expect(result.dataText()).toContain("last words before the hang")
    await expectGroupGone(pgid)
  })

  test("run_bash_command that times out returns what it printed with the timeout error, and its group is gone", async () => {
    const pidFile = join(dir, "bash.pid")
    const tool = new BashTool({ cwd: dir })
    const checked = tool.validate({ command: `sh -c '${hangingScript(pidFile)}'`, timeout: 1 })
    if (!checked.ok) throw new Error(checked.error)
    const { result, pgid } = await runToTimeout(tool, checked.params, pidFile, true)
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("timed out after 1 s")
    expect(result.dataText()).toContain("last words before the hang")
    await expectGroupGone(pgid)
  })
})

/** An in-process tool that never settles and ignores its signal (a stuck HTTP client). */
class Stuck extends Tool {
  constructor() {
    super({ name: "stuck", description: "Never answers", timeout: 0.2 })
  }
  protected invoke(): Promise<StructuredToolResult> {
    return new Promise<StructuredToolResult>(() => {})
  }
}

describe("an in-process tool's timeout is owned by Tool.run", () => {
  test("a tool that ignores its signal still ends at its timeout, as an error result", async () => {
    const result = await new Stuck().run({}, context())
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toBe("stuck timed out after 0.2 s.")
  })
})
