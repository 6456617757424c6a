// `bun run bench` leaves the tracked tree alone (issue 12 item 16): results go to an ignored
// folder, the committed RESULTS.md changes only when someone copies a run there, and the temp
// dirs of the benches are removed with the run.
import { expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const REPO = join(import.meta.dir, "../..")

test("a bench run writes its results to an ignored path and leaves RESULTS.md and TMPDIR as they were", async () => {
  const committed = readFileSync(join(REPO, "test/bench/RESULTS.md"), "utf8")
  const out = mkdtempSync(join(tmpdir(), "dupin-bench-out-"))
  const tmp = join(out, "tmp")
  mkdirSync(tmp)
  const proc = Bun.spawn([process.execPath, "test/bench/index.ts", "context-truncation"], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: tmp,
      TMPDIR: tmp,
      BENCH_ROUNDS: "1",
      BENCH_OUT: out,
    },
    stdout: "ignore",
    stderr: "pipe",
  })
  const stderr = await new Response(proc.stderr).text()
  expect(await proc.exited, stderr).toBe(0)
  expect(readFileSync(join(out, "latest.md"), "utf8")).toContain("# dupin benchmark results")
  expect(existsSync(join(out, "latest.json"))).toBe(true)
  expect(readFileSync(join(REPO, "test/bench/RESULTS.md"), "utf8")).toBe(committed)
  expect(readdirSync(tmp).filter((name) => name.startsWith("dupin-"))).toEqual([])
  // The default results folder is ignored by git.
  const ignored = Bun.spawnSync(["git", "check-ignore", "-q", "test/bench/results/latest.md"], { cwd: REPO })
  expect(ignored.exitCode).toBe(0)
}, 120_000)

test("an unknown bench name is refused with the list of benches", async () => {
  const proc = Bun.spawn([process.execPath, "test/bench/index.ts", "no-such-bench"], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: tmpdir() },
    stdout: "ignore",
    stderr: "pipe",
  })
  const stderr = await new Response(proc.stderr).text()
  expect(await proc.exited).toBe(2)
  expect(stderr).toContain("unknown bench no-such-bench; benches: engine-overhead")
})
