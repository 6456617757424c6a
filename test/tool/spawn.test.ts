import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { configureContainment, resetContainment } from "../../src/tool/containment/index.ts"
import { runPipeline, runProcess } from "../../src/tool/spawn.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import { liveInGroup } from "../support/live-processes.ts"
import { waitFor, waitForPid } from "../support/wait.ts"

const env = buildToolEnv(process.env)
const base = { env, timeoutMs: 10_000, maxOutputBytes: 1_000_000 }

/** SIGKILL is asynchronous: a killed process may still show as running for a moment under load. */
async function survivors(pgid: number): Promise<string[]> {
  // A timeout here is not the failure: the caller's assertion shows who survived.
  await waitFor(() => liveInGroup(pgid).length === 0, { timeoutMs: 5000 }).catch(() => undefined)
  return liveInGroup(pgid)
}

// These describe spawn itself: containment is off unless a describe turns it on (a process that
// configures nothing is contained by default, issue 19.3).
beforeAll(() => configureContainment({ mode: "off" }))
afterAll(() => resetContainment())

describe("runProcess", () => {
  test("captures stdout and stderr in arrival order and the exit code", async () => {
    const r = await runProcess({
      ...base,
      argv: ["bash", "-c", "echo out; sleep 0.05; echo err >&2; exit 3"],
    })
    expect(r).toMatchObject({
      exitCode: 3,
      signalCode: null,
      output: "out\nerr\n",
      stdout: "out\n",
      stderr: "err\n",
    })
    expect(r.timedOut).toBe(false)
  })

  test("one stream's output is its part whole, the other's is empty", async () => {
    const out = await runProcess({ ...base, argv: ["bash", "-c", "echo only out"] })
    expect([out.output, out.stdout, out.stderr]).toEqual(["only out\n", "only out\n", ""])
    const err = await runProcess({ ...base, argv: ["bash", "-c", "echo only err >&2"] })
    expect([err.output, err.stdout, err.stderr]).toEqual(["only err\n", "", "only err\n"])
  })

  test("interleaved streams past the first buffer are kept byte for byte up to the cap", async () => {
    // 300 KB of stdout lines with stderr lines between them: many chunks, several buffer growths,
    // and a cap that falls inside a chunk.
    const script = `for i in $(seq 1 3000); do printf '%099d\\n' $i; if [ $((i % 500)) = 0 ]; then echo "e$i" >&2; fi; done`
    const full = await runProcess({ ...base, argv: ["bash", "-c", script] })
    const lines = Array.from({ length: 3000 }, (_, i) => `${String(i + 1).padStart(99, "0")}\n`)
    expect(full.stdout).toBe(lines.join(""))
    expect(full.stderr).toBe("e500\ne1000\ne1500\ne2000\ne2500\ne3000\n")
    expect(full.output.length).toBe(full.stdout.length + full.stderr.length)
    expect(full.truncatedBytes).toBe(0)

    const cut = await runProcess({ ...base, maxOutputBytes: 123_457, argv: ["bash", "-c", script] })
    expect(cut.output.length).toBe(123_457)
    expect(cut.stdout.length + cut.stderr.length).toBe(123_457)
    expect(lines.join("")).toStartWith(cut.stdout)
    expect(cut.outputBytes).toBe(full.outputBytes)
    expect(cut.truncatedBytes).toBe(full.outputBytes - 123_457)
  })

  test("a cap inside a multi-byte character decodes the part that was kept; a BOM is output", async () => {
    const r = await runProcess({ ...base, maxOutputBytes: 4, argv: ["printf", "abcé"] })
    expect(r.output).toBe("abc\uFFFD")
    expect(r.truncatedBytes).toBe(1)
    const bom = await runProcess({ ...base, argv: ["printf", "\\357\\273\\277x"] })
    expect(bom.output).toBe("\uFEFFx")
  })

  test("feeds stdin and runs in cwd", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-spawn-"))
    const r = await runProcess({ ...base, argv: ["bash", "-c", "cat; pwd"], stdin: "hello\n", cwd: dir })
    expect(r.output).toBe(`hello\n${dir}\n`)
  })

  test("a missing executable is a result, not a throw", async () => {
    const r = await runProcess({ ...base, argv: ["kubectl-does-not-exist", "get", "pods"] })
    expect(r.exitCode).toBe(127)
    expect(r.error).toBe("kubectl-does-not-exist: command not found")
    expect(r.output).toContain("command not found")
  })

  test("200 MB of output keeps memory bounded and counts every byte", async () => {
    // Measured in a fresh process: the peak RSS of this shared test process says nothing reliable.
    const child = Bun.spawn(["bun", join(import.meta.dir, "fixtures", "big-output.ts")], { stdout: "pipe" })
    const [text, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
    expect(code).toBe(0)
    const r = JSON.parse(text)
    expect(r.exitCode).toBe(0)
    expect(r.kept).toBe(100_000)
    expect(r.outputBytes).toBe(200_000_000)
    expect(r.truncatedBytes).toBe(200_000_000 - 100_000)
    expect(r.peakGrowthKiB).toBeLessThan(64 * 1024)
  }, 60_000)

  test("timeout kills the leader and its background children", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-spawn-"))
    const pidFile = join(dir, "pid")
    const started = performance.now()
    const r = await runProcess({
      ...base,
      timeoutMs: 500,
      argv: ["bash", "-c", `echo $$ > ${pidFile}; sleep 1000 & sleep 1000`],
    })
    expect(r.timedOut).toBe(true)
    expect(r.exitCode).toBeNull()
    expect(r.signalCode).toBe("SIGTERM")
    expect(performance.now() - started).toBeLessThan(4000)
    const pgid = Number((await Bun.file(pidFile).text()).trim())
    expect(await survivors(pgid)).toEqual([])
  })

  test("a leader that ignores SIGTERM is killed after the grace period", async () => {
    const r = await runProcess({ ...base, timeoutMs: 300, argv: ["bash", "-c", "trap '' TERM; sleep 1000"] })
    expect(r.timedOut).toBe(true)
    expect(r.signalCode).toBe("SIGKILL")
  })

  test("abort kills the whole group", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-spawn-"))
    const pidFile = join(dir, "pid")
    const controller = new AbortController()
    const running = runProcess({
      ...base,
      signal: controller.signal,
      argv: ["bash", "-c", `echo $$ > ${pidFile}; sleep 1000 & sleep 1000`],
    })
    // Abort once the group exists: an abort before the shell wrote its pid would prove nothing.
    const pgid = await waitForPid(pidFile)
    controller.abort()
    const r = await running
    expect(r.aborted).toBe(true)
    expect(r.timedOut).toBe(false)
    expect(await survivors(pgid)).toEqual([])
  })

  test("an already aborted signal starts nothing", async () => {
    const r = await runProcess({ ...base, signal: AbortSignal.abort(), argv: ["bash", "-c", "echo hi"] })
    expect(r).toMatchObject({ aborted: true, exitCode: null, output: "" })
  })

  test("background children do not outlive a leader that exits normally", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-spawn-"))
    const pidFile = join(dir, "pid")
    const started = performance.now()
    const r = await runProcess({
      ...base,
      argv: ["bash", "-c", `echo $$ > ${pidFile}; sleep 1000 & echo done`],
    })
    expect(r.exitCode).toBe(0)
    expect(r.output).toBe("done\n")
    expect(performance.now() - started).toBeLessThan(3000)
    const pgid = Number((await Bun.file(pidFile).text()).trim())
    expect(await survivors(pgid)).toEqual([])
  })
})

describe("runPipeline", () => {
  test("wires stdout to stdin between stages", async () => {
    const r = await runPipeline({ ...base, stages: [["printf", "b\\na\\nc\\n"], ["sort"], ["head", "-2"]] })
    expect(r.exitCode).toBe(0)
    expect(r.output).toBe("a\nb\n")
    expect(r.stages.map((s) => s.exitCode)).toEqual([0, 0, 0])
  })

  test("pipefail: the rightmost failing stage decides the exit code", async () => {
    const r = await runPipeline({
      ...base,
      stages: [["bash", "-c", "exit 4"], ["bash", "-c", "cat; exit 5"], ["cat"]],
    })
    expect(r.exitCode).toBe(5)
    expect(r.stages.map((s) => s.exitCode)).toEqual([4, 5, 0])
    const first = await runPipeline({ ...base, stages: [["bash", "-c", "echo oops >&2; exit 4"], ["cat"]] })
    expect(first.exitCode).toBe(4)
    expect(first.output).toBe("oops\n")
  })

  test("a producer cut off by an early-exiting consumer is not a failure", async () => {
    const r = await runPipeline({ ...base, stages: [["yes"], ["head", "-2"]] })
    expect(r.exitCode).toBe(0)
    expect(r.output).toBe("y\ny\n")
  })

  test("no file descriptors leak and a hung pipeline is killed at the timeout", async () => {
    const fds = () => Array.from(new Bun.Glob("*").scanSync("/proc/self/fd")).length
    const before = fds()
    const r = await runPipeline({ ...base, timeoutMs: 300, stages: [["sleep", "1000"], ["cat"], ["cat"]] })
    expect(r.timedOut).toBe(true)
    await runPipeline({ ...base, stages: [["echo", "x"], ["cat"]] })
    expect(fds()).toBeLessThanOrEqual(before)
  })

  test("a missing stage executable is reported", async () => {
    const r = await runPipeline({ ...base, stages: [["echo", "x"], ["no-such-filter-cmd"]] })
    expect(r.exitCode).toBe(127)
    expect(r.output).toContain("no-such-filter-cmd: command not found")
  })
})

describe("buildToolEnv", () => {
  test("passes the allowlist and never provider keys or dupin secrets", () => {
    const built = buildToolEnv(
      {
        PATH: "/usr/bin",
        HOME: "/h",
        LC_ALL: "C",
        KUBECONFIG: "/k",
        HELM_CACHE_HOME: "/c",
        HELM_REPO_TOKEN: "t",
        OPENAI_API_KEY: "sk-x",
        SVC_AUTH_TOKEN: "a",
        GITHUB_TOKEN: "g",
        RANDOM_VAR: "r",
      },
      { EXTRA: "1", ANTHROPIC_API_KEY: "sk-y", MY_SECRET: "s" },
    )
    expect(built).toEqual({
      PATH: "/usr/bin",
      HOME: "/h",
      LC_ALL: "C",
      KUBECONFIG: "/k",
      HELM_CACHE_HOME: "/c",
      EXTRA: "1",
    })
  })

  test("a provider key in the source env does not reach the child", async () => {
    const source = { ...process.env, OPENAI_API_KEY: "sk-secret-value", SVC_APPROVAL_SECRET: "x" }
    const r = await runProcess({ ...base, env: buildToolEnv(source), argv: ["env"] })
    expect(r.exitCode).toBe(0)
    expect(r.output).not.toContain("sk-secret-value")
    expect(r.output).not.toContain("SVC_")
    expect(r.output).toContain("PATH=")
  })
})

/** Live processes anywhere on the host whose argv contains `marker` (zombies do not count). */
async function liveWith(marker: string): Promise<string[]> {
  const scan = () =>
    Bun.spawnSync(["ps", "-eo", "pid=,stat=,args="])
      .stdout.toString()
      .split("\n")
      .filter((l) => l.includes(marker) && !l.includes("ps -eo") && !/^\s*\d+\s+Z/.test(l))
  await waitFor(() => scan().length === 0, { timeoutMs: 5000 }).catch(() => undefined)
  return scan()
}

describe.skipIf(!Bun.which("bwrap") || process.platform !== "linux")("under containment (bwrap)", () => {
  beforeAll(() => {
    expect(configureContainment({ mode: "auto" }).mechanism).toBe("bwrap")
  })
  afterAll(() => configureContainment({ mode: "off" }))

  test("output, exit code, stdin and cwd work as without it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-spawn-"))
    const r = await runProcess({
      ...base,
      cwd: dir,
      stdin: "in\n",
      argv: ["sh", "-c", "cat; pwd; echo err >&2; exit 3"],
    })
    expect(r.exitCode).toBe(3)
    expect(r.stdout).toBe(`in\n${dir}\n`)
    expect(r.stderr).toBe("err\n")
  })

  test("a producer cut off by head is SIGPIPE, not a failure; a missing command is 127", async () => {
    const cut = await runPipeline({ ...base, stages: [["yes"], ["head", "-2"]] })
    expect(cut.exitCode).toBe(0)
    expect(cut.stages[0]).toMatchObject({ exitCode: null, signalCode: "SIGPIPE" })
    const missing = await runPipeline({ ...base, stages: [["echo", "x"], ["no-such-filter-cmd"]] })
    expect(missing.exitCode).toBe(127)
    expect(missing.output).toContain("no-such-filter-cmd: command not found")
  })

  test("timeout and abort leave no process behind, background ones included", async () => {
    const timedOut = await runProcess({
      ...base,
      timeoutMs: 300,
      argv: ["sh", "-c", "sleep 4242 & trap '' TERM; sleep 4242"],
    })
    expect(timedOut.timedOut).toBe(true)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const aborted = await runProcess({
      ...base,
      signal: controller.signal,
      argv: ["sh", "-c", "sleep 4243 & sleep 4243"],
    })
    expect(aborted.aborted).toBe(true)
    expect(await liveWith("sleep 4242")).toEqual([])
    expect(await liveWith("sleep 4243")).toEqual([])
  })
})

describe("concurrent tool processes", () => {
  afterAll(() => resetContainment())

  test("past the cap, runs wait their turn; an aborted waiter leaves the queue; a too-long pipeline is refused", async () => {
    configureContainment({ mode: "off", maxConcurrentProcesses: 2 })
    const started = performance.now()
    const runs = await Promise.all([1, 2, 3, 4].map(() => runProcess({ ...base, argv: ["sleep", "0.3"] })))
    expect(runs.every((r) => r.exitCode === 0)).toBe(true)
    // Four 0.3 s sleeps two at a time take two rounds.
    expect(performance.now() - started).toBeGreaterThan(580)

    const blocker = runProcess({ ...base, argv: ["sleep", "0.5"] })
    const blocker2 = runProcess({ ...base, argv: ["sleep", "0.5"] })
    const waiting = performance.now()
    const aborted = await runProcess({ ...base, signal: AbortSignal.timeout(100), argv: ["echo", "never"] })
    expect(aborted).toMatchObject({ aborted: true, output: "" })
    expect(performance.now() - waiting).toBeLessThan(400)
    await Promise.all([blocker, blocker2])

    const long = await runPipeline({ ...base, stages: [["echo"], ["cat"], ["cat"]] })
    expect(long.exitCode).toBe(126)
    expect(long.output).toContain("exceeds the 2 tool processes")
  })
})
