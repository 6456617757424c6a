/**
 * The long-lived sandbox helper (issue 19.1): tool processes start inside one bubblewrap sandbox
 * per view instead of one each. What each process had under its own sandbox must hold: abort and
 * timeout kill the command and its children inside the sandbox, a crashed helper is replaced, and
 * nothing is left once dupin is gone, SIGKILL included.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { join } from "node:path"
import {
  configureContainment,
  currentContainment,
  resetContainment,
} from "../../src/tool/containment/index.ts"
import { runProcess } from "../../src/tool/spawn.ts"
import { goneWith, liveInGroup, liveWith } from "../support/live-processes.ts"
import { waitFor } from "../support/wait.ts"

const env = { PATH: "/usr/bin:/bin" }
const base = { env, timeoutMs: 30_000, maxOutputBytes: 100_000 }

describe.skipIf(!Bun.which("bwrap") || process.platform !== "linux")("the sandbox helper", () => {
  beforeAll(() => {
    expect(configureContainment({ mode: "auto" }).mechanism).toBe("bwrap")
  })
  afterAll(() => resetContainment())

  test("processes run in one long-lived sandbox per view, not one each", async () => {
    const first = await runProcess({ ...base, argv: ["sh", "-c", "echo $PPID"] })
    const second = await runProcess({ ...base, argv: ["sh", "-c", "echo $PPID"] })
    expect(first.exitCode).toBe(0)
    // The same helper (one pid inside the sandbox) started both.
    expect(first.output).toBe(second.output)
    expect(currentContainment().pool?.sandboxes.length).toBe(1)
  })

  test("timeout and abort kill the command and its background children inside the sandbox", async () => {
    const timedOut = await runProcess({
      ...base,
      timeoutMs: 500,
      argv: ["sh", "-c", "sleep 5151 & trap '' TERM; sleep 5151"],
    })
    expect(timedOut.timedOut).toBe(true)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 500)
    const aborted = await runProcess({
      ...base,
      signal: controller.signal,
      argv: ["sh", "-c", "sleep 5252 & setsid sleep 5252 & sleep 5252"],
    })
    expect(aborted.aborted).toBe(true)
    expect(await goneWith("sleep 5151")).toEqual([])
    expect(await goneWith("sleep 5252")).toEqual([])
  }, 60_000)

  test("a process that left its run's group (setsid) does not outlive the run", async () => {
    const run = await runProcess({
      ...base,
      argv: ["sh", "-c", "setsid sleep 5353 >/dev/null 2>&1 & echo started"],
    })
    expect(run.output).toBe("started\n")
    expect(await goneWith("sleep 5353")).toEqual([])
  }, 30_000)

  test("a crashed helper fails its runs and is started again for the next one", async () => {
    const running = runProcess({ ...base, argv: ["sleep", "5454"] })
    await waitFor(() => liveWith("sleep 5454").length > 0, { timeoutMs: 20_000 })
    const sandbox = currentContainment().pool?.sandboxes[0]
    const pid = sandbox?.pid
    expect(pid).toBeGreaterThan(0)
    process.kill(-pid!, "SIGKILL")
    const failed = await running
    expect(failed.exitCode).toBe(126)
    expect(failed.output).toContain("tool sandbox ended")
    expect(await goneWith("sleep 5454")).toEqual([])
    const next = await runProcess({ ...base, argv: ["echo", "back"] })
    expect(next.output).toBe("back\n")
    expect(sandbox?.pid).not.toBe(pid)
  }, 60_000)
})

describe.skipIf(!Bun.which("bwrap") || process.platform !== "linux")("when dupin is killed", () => {
  test("SIGKILL of dupin ends the sandbox and every process in it", async () => {
    const holder = Bun.spawn(
      [process.execPath, join(import.meta.dir, "fixtures/sandbox-holder.ts"), "5656"],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    )
    const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader()
    const { value } = await reader.read()
    const { helper } = JSON.parse(new TextDecoder().decode(value)) as { helper: number }
    expect(helper).toBeGreaterThan(0)
    expect(liveWith("sleep 5656").length).toBeGreaterThan(0)
    holder.kill("SIGKILL")
    await holder.exited
    expect(await goneWith("sleep 5656")).toEqual([])
    // The sandbox (bwrap leads its own process group, the helper inside it) is gone too.
    await waitFor(() => liveInGroup(helper).length === 0, { timeoutMs: 10_000 }).catch(() => undefined)
    expect(liveInGroup(helper)).toEqual([])
  }, 60_000)
})
