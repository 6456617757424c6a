// Runs before every test file. No test may reach a real provider or read the developer's
// own configuration, so provider keys are deleted and HOME points at an empty temp dir. Every temp
// dir the run makes (its own, its servers' and tools') lives under one root removed at exit, so a
// test that forgets its cleanup, or fails before it, leaves nothing in /tmp.
import { afterAll } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setLogLevel } from "../src/log.ts"

for (const name of Object.keys(process.env)) {
  if (/_API_KEY$|_API_BASE$|^OPENAI_BASE_URL$|^SVC_|^MODEL$|^ENABLED_PROMPTS$|^OVERRIDE_MAX_/.test(name)) {
    delete process.env[name]
  }
}
const root = mkdtempSync(join(tmpdir(), "dupin-test-run-"))
process.env.TMPDIR = root
// bun test does not emit process "exit"; a top-level afterAll in the preload runs once at the end.
// The run dir can hold installed projects and a hard-linked copy of Bun's cache (test/package):
// removing them takes seconds on a busy machine, past the default 5 s hook timeout.
afterAll(() => rmSync(root, { recursive: true, force: true }), 120_000)
process.env.HOME = mkdtempSync(join(root, "dupin-test-home-"))
// Warnings the tests provoke on purpose (retries, unknown models) would bury real failures.
setLogLevel("ERROR")
