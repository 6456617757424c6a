/**
 * dupin's state folder (tool/containment/state-dir.ts) is removed however dupin ends: at exit, and
 * on a SIGTERM or SIGHUP that nothing in dupin handles (`dupin ask` in a closed terminal, a `kill`),
 * after which the signal still ends the process. Before, such a signal left the folder behind.
 */
import { expect, test } from "bun:test"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const CHILD = `
import { makeStateDir } from ${JSON.stringify(join(import.meta.dir, "../../src/tool/containment/state-dir.ts"))}
console.log(makeStateDir())
setInterval(() => {}, 1000)
`

async function endedBy(
  signal: "SIGTERM" | "SIGHUP" | "exit",
): Promise<{ dir: string; code: number | null; by: unknown }> {
  const parent = mkdtempSync(join(tmpdir(), "dupin-state-signals-"))
  const script = signal === "exit" ? CHILD.replace("setInterval(() => {}, 1000)", "") : CHILD
  const proc = Bun.spawn(["bun", "-e", script], {
    env: { PATH: process.env.PATH ?? "", TMPDIR: parent },
    stdout: "pipe",
  })
  const reader = proc.stdout.getReader()
  let out = ""
  while (!out.includes("\n")) {
    const { value, done } = await reader.read()
    if (done) break
    out += new TextDecoder().decode(value)
  }
  const dir = out.trim()
  if (signal !== "exit") {
    expect(existsSync(dir)).toBe(true)
    proc.kill(signal)
  }
  await proc.exited
  const left = existsSync(dir)
  rmSync(parent, { recursive: true, force: true })
  return { dir: left ? dir : "", code: proc.exitCode, by: proc.signalCode }
}

for (const signal of ["SIGTERM", "SIGHUP"] as const) {
  test(`${signal}: the state folder is removed, and the signal still ends the process`, async () => {
    const ended = await endedBy(signal)
    expect(ended.dir).toBe("")
    expect(ended.by).toBe(signal)
  })
}

test("a normal exit removes it too", async () => {
  const ended = await endedBy("exit")
  expect(ended.dir).toBe("")
  expect(ended.code).toBe(0)
})
