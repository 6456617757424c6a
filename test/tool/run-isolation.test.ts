/**
 * Issue 18: runs in one sandbox view must not see each other. Two conversations' tool calls run in
 * the same long-lived sandbox; each run has its own pid namespace, /proc and run folder, so a
 * concurrent run cannot list another's processes, read its argv or environment, or open its
 * temp files. Killing a run still reaches every process it started, grandchildren included.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import {
  configureContainment,
  currentContainment,
  resetContainment,
} from "../../src/tool/containment/index.ts"
import type { SandboxView } from "../../src/tool/containment/views.ts"
import { runProcess } from "../../src/tool/spawn.ts"
import { goneWith, liveWith } from "../support/live-processes.ts"
import { waitFor } from "../support/wait.ts"

const BWRAP = Bun.which("bwrap") !== null && process.platform === "linux"
const env = { PATH: "/usr/bin:/bin" }

describe.skipIf(!BWRAP)("runs in one sandbox view", () => {
  beforeAll(() => {
    expect(configureContainment({ mode: "auto" }).mechanism).toBe("bwrap")
  })
  afterAll(() => resetContainment())

  for (const view of ["read-only", "writable"] as SandboxView[]) {
    test(`${view}: a concurrent run sees none of another run's processes, argv, environment or files`, async () => {
      const argvMark = `argv-mark-${view}-4711`
      const envMark = `env-mark-${view}-0815`
      const fileMark = `file-mark-${view}-2342`
      const controller = new AbortController()
      const a = runProcess({
        argv: ["sh", "-c", `echo ${fileMark} > "$TMPDIR/a-private"; sleep 30 # ${argvMark}`],
        env: { ...env, RUN_A_SECRET: envMark },
        timeoutMs: 60_000,
        maxOutputBytes: 10_000,
        signal: controller.signal,
        view,
      })
      await waitFor(() => liveWith(argvMark).length > 0, { timeoutMs: 20_000 })
      const b = await runProcess({
        argv: [
          "sh",
          "-c",
          [
            "echo own-run-$$",
            "ps -eo args",
            "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '",
            "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'",
            'ls -A "$(dirname "$TMPDIR")"',
            'cat "$(dirname "$TMPDIR")"/*/a-private 2>/dev/null',
            "echo end",
          ].join("; "),
        ],
        env,
        timeoutMs: 30_000,
        maxOutputBytes: 200_000,
        view,
      })
      controller.abort()
      await a
      expect(b.exitCode).toBe(0)
      // B sees itself (its /proc works)…
      expect(b.output).toContain("ps -eo args")
      expect(b.output).toContain("end")
      // …and nothing of A.
      expect(b.output).not.toContain(argvMark)
      expect(b.output).not.toContain(envMark)
      expect(b.output).not.toContain(fileMark)
      expect(b.output).not.toContain("sleep 30")
      expect(await goneWith(argvMark)).toEqual([])
    }, 60_000)
  }

  test("a run killed at its timeout leaves no dead namespace behind: the next runs start", async () => {
    // A killed run's init lingers as a zombie until reaped; a namespace whose init died starts
    // nothing (fork is ENOMEM), so it must never go back to the spares.
    for (let i = 0; i < 4; i++) {
      const killed = await runProcess({
        argv: ["sh", "-c", "trap '' TERM; sleep 4244"],
        env,
        timeoutMs: 200,
        maxOutputBytes: 1000,
      })
      expect(killed.timedOut).toBe(true)
      const next = await runProcess({
        argv: ["echo", `next-${i}`],
        env,
        timeoutMs: 10_000,
        maxOutputBytes: 1000,
      })
      expect(next.output).toBe(`next-${i}\n`)
      expect(next.exitCode).toBe(0)
    }
    expect(await goneWith("sleep 4244")).toEqual([])
  }, 60_000)

  test("a tool has no capabilities and cannot gain any, in either view, whoever runs dupin", async () => {
    // The helper's sandbox keeps capabilities to make run namespaces; what it runs must not.
    for (const view of ["read-only", "writable"] as SandboxView[]) {
      const r = await runProcess({
        argv: ["grep", "-E", "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):", "/proc/self/status"],
        env,
        timeoutMs: 10_000,
        maxOutputBytes: 10_000,
        view,
      })
      const fields = Object.fromEntries(
        r.output
          .trim()
          .split("\n")
          .map((l) => l.split(/:\s+/)),
      )
      expect(Object.keys(fields)).toHaveLength(6)
      for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"])
        expect(fields[set], set).toBe("0000000000000000")
      expect(fields.NoNewPrivs).toBe("1")
    }
  })

  test("a later run finds nothing of an earlier one in its temp folder", async () => {
    const mark = "left-behind-5150"
    const opts = { env, timeoutMs: 30_000, maxOutputBytes: 10_000 }
    for (let i = 0; i < 6; i++) {
      const r = await runProcess({
        ...opts,
        argv: [
          "sh",
          "-c",
          `ls -A "$TMPDIR"; cat "$TMPDIR"/* 2>/dev/null; echo ${mark} > "$TMPDIR/f$$"; mkdir -p "$TMPDIR/d/e"`,
        ],
      })
      expect(r.exitCode).toBe(0)
      expect(r.output).toBe("")
    }
  }, 30_000)

  test("abort kills a run's grandchildren, also those that left its process group", async () => {
    const controller = new AbortController()
    const run = runProcess({
      argv: [
        "sh",
        "-c",
        "sh -c 'sleep 7171 & setsid sleep 7272 & (sleep 7373 &) ; wait' & echo started; wait",
      ],
      env,
      timeoutMs: 60_000,
      maxOutputBytes: 10_000,
      signal: controller.signal,
    })
    await waitFor(() => ["7171", "7272", "7373"].every((n) => liveWith(`sleep ${n}`).length > 0), {
      timeoutMs: 20_000,
    })
    controller.abort()
    const result = await run
    expect(result.aborted).toBe(true)
    for (const n of ["7171", "7272", "7373"]) expect(await goneWith(`sleep ${n}`)).toEqual([])
  }, 60_000)

  test("a run's background processes end with its last stage, and a pipeline still works", async () => {
    const r = await runProcess({
      argv: ["sh", "-c", "setsid sleep 7474 >/dev/null 2>&1 & yes | head -n 3"],
      env,
      timeoutMs: 30_000,
      maxOutputBytes: 10_000,
    })
    expect(r.output).toBe("y\ny\ny\n")
    expect(r.exitCode).toBe(0)
    expect(liveWith("sleep 7474")).toEqual([])
  }, 30_000)

  test("parallel runs that leave nothing behind reuse their namespaces: no init is started or ended per run", async () => {
    const pair = () =>
      Promise.all(
        [1, 2].map(() => runProcess({ argv: ["true"], env, timeoutMs: 30_000, maxOutputBytes: 1000 })),
      )
    for (let i = 0; i < 4; i++) await pair()
    // Each namespace's init is a `cat` named dupin-run, in the view's sandbox (under its bwrap).
    const sandbox = currentContainment().pool?.get("read-only", env).pid
    expect(sandbox).toBeNumber()
    const inits = () => {
      const rows = Bun.spawnSync(["ps", "-eo", "pid=,ppid=,args="])
        .stdout.toString()
        .split("\n")
        .map((l) => l.trim().split(/\s+/))
      const inside = new Set([String(sandbox)])
      for (let grew = true; grew; ) {
        grew = false
        for (const [pid, ppid] of rows) {
          if (pid && ppid && inside.has(ppid) && !inside.has(pid)) {
            inside.add(pid)
            grew = true
          }
        }
      }
      return rows.filter(([pid, , name]) => inside.has(pid ?? "") && name === "dupin-run").map(([pid]) => pid)
    }
    await Bun.sleep(200)
    const before = inits()
    expect(before.length).toBeGreaterThan(0)
    for (let i = 0; i < 10; i++) await pair()
    await Bun.sleep(200)
    expect(inits()).toEqual(before)
  }, 60_000)
})
