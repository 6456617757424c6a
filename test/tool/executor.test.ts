import { describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AbortError } from "../../src/errors.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import { Toolset } from "../../src/tool/toolset.ts"
import { CommandPrerequisite } from "../../src/toolset/command-prerequisite.ts"

const env = buildToolEnv(process.env)

function executorWith(command: string, count: number): ToolExecutor {
  const toolsets = Array.from(
    { length: count },
    (_, i) => new Toolset({ name: `t${i}`, prerequisites: [new CommandPrerequisite(command)] }),
  )
  return new ToolExecutor(toolsets, { limits: DEFAULT_TOOL_LIMITS, env })
}

describe("prerequisite checks", () => {
  test("an identical command shared by several toolsets runs once per round, again after recheck", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "dupin-prereq-")), "runs")
    const executor = executorWith(`echo run >> ${log}`, 3)
    await executor.ensureReady()
    await executor.ensureReady()
    expect(readFileSync(log, "utf8")).toBe("run\n")
    expect(executor.toolsets.every((t) => t.status === "enabled")).toBe(true)
    await executor.recheck()
    expect(readFileSync(log, "utf8")).toBe("run\nrun\n")
  })

  test("a caller that gives up stops waiting without failing the toolsets for later callers", async () => {
    const executor = executorWith("sleep 0.3", 2)
    const controller = new AbortController()
    const first = executor.ensureReady(controller.signal)
    controller.abort()
    await expect(first).rejects.toBeInstanceOf(AbortError)
    await executor.ensureReady()
    expect(executor.toolsets.map((t) => t.status)).toEqual(["enabled", "enabled"])
  })
})
