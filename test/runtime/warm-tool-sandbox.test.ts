/**
 * `dupin ask` starts the tool sandbox before the toolsets are built: the prerequisite checks are
 * the sandbox's first runs, and the first question waits for them (issue 19: `ask` ÷ floor).
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Config } from "../../src/config/config.ts"
import { createRuntime } from "../../src/runtime/runtime.ts"
import { currentContainment, resetContainment } from "../../src/tool/containment/index.ts"

const BWRAP = Bun.which("bwrap") !== null && process.platform === "linux"

describe.skipIf(!BWRAP)("runtime.warmToolSandbox", () => {
  afterAll(() => resetContainment())

  test("starts the read-only view's helper before any toolset is built, and the first run uses it", async () => {
    resetContainment()
    const runtime = createRuntime(new Config({ model: "openai/gpt-4o", env: { OPENAI_API_KEY: "k" } }))
    runtime.warmToolSandbox()
    const sandboxes = currentContainment().pool?.sandboxes ?? []
    expect(sandboxes).toHaveLength(1)
    const helper = sandboxes[0]?.pid
    expect(helper).toBeNumber()
    // The toolsets' checks run in that same sandbox: no second helper for the same view and env.
    await runtime.executor.ensureReady()
    expect(currentContainment().pool?.sandboxes.map((s) => s.pid)).toEqual([helper])
    await runtime.close()
  }, 30_000)
})
