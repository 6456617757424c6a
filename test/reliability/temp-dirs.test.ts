// The suite leaves no temp dirs behind (issue 12 item 16). A server killed with SIGKILL cannot
// remove its own (its state folder dupin-sandbox-*, which holds the header guard's socket folder
// dupin-http-* and the contained tools' runs), so test helpers start it with the run's TMPDIR,
// which the preload removes at the end of the run.
import { expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "../bench/support/server-config.ts"
import { startFakeProvider } from "../support/fake-provider.ts"

const serverDirs = () =>
  new Set(readdirSync(tmpdir()).filter((name) => /^dupin-(http|runs|sandbox)-/.test(name)))

test("a served dupin makes its temp dirs in the test run's root, which outlives a SIGKILL", async () => {
  const before = serverDirs()
  const fake = await startFakeProvider()
  // The header guard (and so its socket dir) is on for loopback only when set explicitly.
  const config = writeServeConfig(fake.url, "server:\n  header_timeout: 10\n")
  const server = await startServerProcess(serveArgv(config.configPath))
  try {
    await waitForOk(`${server.url}/readyz`)
    // Read from the process itself: other runs on the machine may write to /tmp meanwhile.
    const environ = readFileSync(`/proc/${server.pid}/environ`, "utf8").split("\0")
    expect(environ).toContain(`TMPDIR=${tmpdir()}`)
  } finally {
    await server.stop("SIGKILL")
    await fake.stop()
  }
  const made = [...serverDirs()].filter((name) => !before.has(name))
  const state = made.find((name) => name.startsWith(`dupin-sandbox-${server.pid}-`))
  expect(state).toBeDefined()
  // The socket's folder is inside the state folder, which every tool sandbox hides (R8).
  expect(readdirSync(join(tmpdir(), state!)).some((name) => name.startsWith("dupin-http-"))).toBe(true)
})
