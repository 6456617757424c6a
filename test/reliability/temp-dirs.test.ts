// The suite leaves no temp dirs behind (issue 12 item 16). A server killed with SIGKILL cannot
// remove its own (dupin-http-* for its socket, dupin-runs-* for contained tools), so test helpers
// start it with the run's TMPDIR, which the preload removes at the end of the run.
import { expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname } from "node:path"
import { startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "../bench/support/server-config.ts"
import { startFakeProvider } from "../support/fake-provider.ts"

const SERVER_DIRS = /^dupin-(http|runs)-/

test("a served dupin killed with SIGKILL leaves its temp dirs in the run's root, not in the system's", async () => {
  const system = dirname(tmpdir())
  const before = new Set(readdirSync(system).filter((name) => SERVER_DIRS.test(name)))
  const fake = await startFakeProvider()
  const server = await startServerProcess(serveArgv(writeServeConfig(fake.url).configPath))
  try {
    await waitForOk(`${server.url}/readyz`)
  } finally {
    await server.stop("SIGKILL")
    await fake.stop()
  }
  const leaked = readdirSync(system).filter((name) => SERVER_DIRS.test(name) && !before.has(name))
  expect(leaked).toEqual([])
  expect(readdirSync(tmpdir()).some((name) => name.startsWith("dupin-http-"))).toBe(true)
})
