/**
 * `recheck` (`dupin toolsets check`, or a library caller) re-runs every prerequisite. A read of
 * the tool maps while the checks run must not leave the previous round's answer cached: once the
 * recheck is done, `toolsByName`, `offeredTools` and `schemas()` reflect the new outcome.
 */
import { expect, test } from "bun:test"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { CallablePrerequisite } from "../../src/tool/prerequisite.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { Toolset } from "../../src/tool/toolset.ts"
import { EchoTool } from "../support/tools.ts"

test("a toolset that now passes its recheck is listed and offered, though the maps were read during the check", async () => {
  let passes = false
  let release: () => void = () => {}
  let gate: Promise<void> = Promise.resolve()
  const flaky = new Toolset({
    name: "team/flaky",
    tools: [new EchoTool("flaky_echo")],
    prerequisites: [
      new CallablePrerequisite({
        callable: async () => {
          await gate
          return passes ? [true, ""] : [false, "the service was down"]
        },
      }),
    ],
  })
  const steady = new Toolset({ name: "team/steady", tools: [new EchoTool("steady_echo")] })
  const executor = new ToolExecutor([flaky, steady], { limits: DEFAULT_TOOL_LIMITS, env: {} })

  await executor.ensureReady()
  expect(flaky.status).toBe("failed")
  expect(Object.keys(executor.toolsByName)).toEqual(["steady_echo"])

  passes = true
  gate = new Promise((resolve) => {
    release = resolve
  })
  const rechecked = executor.recheck()
  // Someone reads the maps while the check is under way (a status line, a concurrent run).
  expect(Object.keys(executor.toolsByName)).toEqual(["steady_echo"])
  expect(Object.keys(executor.offeredTools)).toEqual(["steady_echo"])
  expect(executor.schemas()).toHaveLength(1)
  release()
  await rechecked

  expect(flaky.status).toBe("enabled")
  expect(Object.keys(executor.toolsByName).sort()).toEqual(["flaky_echo", "steady_echo"])
  expect(Object.keys(executor.offeredTools).sort()).toEqual(["flaky_echo", "steady_echo"])
  expect(
    executor
      .schemas()
      .map((s) => s.function.name)
      .sort(),
  ).toEqual(["flaky_echo", "steady_echo"])
})
