/**
 * Two `dupin serve` on one port: the second must fail (exit 1, one line naming the port) instead of
 * binding with reusePort and silently taking half the first one's traffic (CONTRACT §2).
 */
import { afterEach, expect, test } from "bun:test"
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { type ServerProcess, startServerProcess } from "../bench/support/processes.ts"
import { writeServeConfig } from "../bench/support/server-config.ts"

let first: ServerProcess | undefined
let dir: string | undefined
// SIGTERM drains: the listener stays open a few seconds (server-drain.test.ts) before exit.
afterEach(async () => {
  await first?.stop()
  first = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
}, 15_000)

for (const headerTimeout of [10, 0]) {
  test(`a second dupin serve on a port in use exits 1 naming the port (header_timeout ${headerTimeout})`, async () => {
    const files = writeServeConfig("http://127.0.0.1:9/v1", `server:\n  header_timeout: ${headerTimeout}\n`)
    dir = files.dir
    first = await startServerProcess([
      "bun",
      "src/main.ts",
      "serve",
      "--config",
      files.configPath,
      "--port",
      "0",
    ])
    const port = new URL(first.url).port

    const second = Bun.spawn(["bun", "src/main.ts", "serve", "--config", files.configPath, "--port", port], {
      cwd: `${import.meta.dir}/../..`,
      stdout: "ignore",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", TMPDIR: tmpdir() },
    })
    const exited = await Promise.race([second.exited, Bun.sleep(8000).then(() => "running" as const)])
    if (exited === "running") second.kill("SIGKILL")
    const stderr = await new Response(second.stderr).text()
    expect(exited).toBe(1)
    // One clean line (CONTRACT §2): the port and what to do, not an "unexpected error".
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(
      `dupin: port ${port} on 127.0.0.1 is already in use: stop the other server, or pass --port or set SVC_PORT`,
    )
    expect(stderr).not.toContain("unexpected")
    // The first server still owns the port.
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200)
  }, 30_000)
}
