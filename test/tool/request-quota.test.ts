/**
 * Per-request shares of the tool-process pool (issue 18 class 6): one request cannot hold every
 * slot (R13: another user's `uptime` waited 18 s) nor take the host's memory (R6: four
 * `cat /dev/zero | tail -c 1G` held 3.7 GB in 5 s).
 */
import { afterAll, describe, expect, test } from "bun:test"
import { configureContainment, newRequestQuota, resetContainment } from "../../src/tool/containment/index.ts"
import { runPipeline, runProcess } from "../../src/tool/spawn.ts"

const BWRAP = Bun.which("bwrap") !== null && process.platform === "linux"
const env = { PATH: "/usr/bin:/bin" }
const MiB = 1024 * 1024

describe("per-request quotas", () => {
  afterAll(() => resetContainment())

  test("R13: a request running 8 tail -f pipelines cannot delay another request's uptime", async () => {
    configureContainment({ mode: BWRAP ? "auto" : "off", maxConcurrentProcesses: 8 })
    const hog = newRequestQuota()
    const abort = new AbortController()
    const hogs = Array.from({ length: 8 }, () =>
      runPipeline({
        stages: [["tail", "-f", "/etc/hostname"], ["cat"]],
        env,
        timeoutMs: 20_000,
        signal: abort.signal,
        maxOutputBytes: 1024,
        quota: hog,
      }),
    )
    await Bun.sleep(1500)
    const started = performance.now()
    const victim = await runProcess({
      argv: ["uptime"],
      env,
      timeoutMs: 20_000,
      maxOutputBytes: 1024,
      quota: newRequestQuota(),
    })
    const waited = performance.now() - started
    abort.abort()
    await Promise.all(hogs)
    expect(victim.exitCode).toBe(0)
    expect(waited).toBeLessThan(5000)
  }, 60_000)

  test.skipIf(!BWRAP)(
    "R6: four parallel cat /dev/zero | tail -c calls stay within the request's memory quota",
    async () => {
      configureContainment({ mode: "auto", totalMemoryBytes: 1024 * MiB })
      const quota = newRequestQuota()
      expect(quota.memoryBytes).toBe(256 * MiB)
      const started = performance.now()
      const runs = await Promise.all(
        Array.from({ length: 4 }, () =>
          runPipeline({
            stages: [
              ["cat", "/dev/zero"],
              ["tail", "-c", String(400 * MiB)],
            ],
            env,
            timeoutMs: 40_000,
            maxOutputBytes: 1024,
            quota,
          }),
        ),
      )
      // Killed for the quota, well before the deadline, and said so.
      expect(performance.now() - started).toBeLessThan(39_000)
      for (const r of runs) {
        expect(r.timedOut).toBe(false)
        expect(r.error).toContain("memory quota")
      }
    },
    60_000,
  )
})
