/**
 * The long-lived sandbox helper (issue 19.1): tool processes start inside one bubblewrap sandbox
 * per view instead of one each. What each process had under its own sandbox must hold: abort and
 * timeout kill the command and its children inside the sandbox, a crashed helper is replaced, and
 * nothing is left once dupin is gone, SIGKILL included.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
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

  test("a long output goes through a file of the run area, exactly, and the file is gone after", async () => {
    // 400 KB interleaved on both streams, past the frames' 128 KB, under a 300 KB cap.
    const script =
      "i=0; while [ $i -lt 4000 ]; do printf 'out %05d %080d\\n' $i 0; printf 'err %05d\\n' $i >&2; i=$((i+1)); done"
    const run = await runProcess({ ...base, maxOutputBytes: 300_000, argv: ["sh", "-c", script] })
    expect(run.exitCode).toBe(0)
    const outLine = (i: number) => `out ${String(i).padStart(5, "0")} ${"0".repeat(80)}\n`
    const errLine = (i: number) => `err ${String(i).padStart(5, "0")}\n`
    const total = 4000 * (outLine(0).length + errLine(0).length)
    expect(run.outputBytes).toBe(total)
    expect(run.truncatedBytes).toBe(total - 300_000)
    expect(Buffer.byteLength(run.output)).toBe(300_000)
    // Each stream's part is its own lines, in order (the kept prefix of them).
    const outs = run.stdout.split("\n").filter(Boolean)
    const errs = run.stderr.split("\n").filter(Boolean)
    expect(outs.length).toBeGreaterThan(2000)
    for (const [i, line] of outs.slice(0, -1).entries()) expect(`${line}\n`).toBe(outLine(i))
    for (const [i, line] of errs.slice(0, -1).entries()) expect(`${line}\n`).toBe(errLine(i))
    // The two pipes are read apart, so their order in `output` is arrival order: both in full.
    expect(run.output.length).toBe(run.stdout.length + run.stderr.length)
    const sandbox = currentContainment().pool?.sandboxes[0]
    expect(sandbox).toBeDefined()
    // The helper's output file was read and removed; only run folders are left in the area.
    expect(readdirSync(sandbox!.area).filter((name) => name.startsWith("out-"))).toEqual([])
    // Spilled: the helper's file becomes the spill file as it is when nothing needs redacting,
    // and a redacted copy is written when something does.
    /** The spilled text of 3000 lines printed by `format` (a printf format of the line number). */
    const spilled = async (format: string) => {
      const run = await runProcess({
        ...base,
        maxOutputBytes: 1_000_000,
        spill: true,
        argv: ["sh", "-c", `i=0; while [ $i -lt 3000 ]; do printf '${format}' $i; i=$((i+1)); done`],
      })
      expect(run.spill).toBeDefined()
      const text = await run.spill!.text()
      run.spill!.remove()
      return text
    }
    const plainText = await spilled(`line %05d ${"0".repeat(100)}\\n`)
    expect(plainText.length).toBe(3000 * 112)
    expect(plainText.startsWith(`line 00000 ${"0".repeat(100)}\nline 00001`)).toBe(true)
    const secretText = await spilled("kind: Secret\\ndata:\\n  password: aHVudGVyMg%05d\\n")
    expect(secretText).not.toContain("aHVudGVyMg")
    expect(secretText).toContain("password: [REDACTED]")
    expect(readdirSync(sandbox!.area).filter((name) => name.startsWith("out-"))).toEqual([])
    // A short output still comes in frames: exact too.
    const short = await runProcess({ ...base, argv: ["sh", "-c", "echo a; echo b >&2; echo c"] })
    expect(short.stdout).toBe("a\nc\n")
    expect(short.stderr).toBe("b\n")
  }, 60_000)
})

describe.skipIf(!Bun.which("bwrap") || process.platform !== "linux")("when dupin is killed", () => {
  test("SIGKILL of dupin ends the sandbox and every process in it", async () => {
    const holder = Bun.spawn(
      [process.execPath, join(import.meta.dir, "fixtures/sandbox-holder.ts"), "5656"],
      {
        // Passed on explicitly: Bun.spawn's default is the environment the process started with,
        // without the preload's TMPDIR, and a SIGKILLed holder's state folder must land in the
        // test run's root (it was left in /tmp once per suite run).
        env: { ...process.env },
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
