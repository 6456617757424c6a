// Runs before every test file. No test may reach a real provider or read the developer's
// own configuration, so provider keys are deleted and HOME points at an empty temp dir.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setLogLevel } from "../src/log.ts"

for (const name of Object.keys(process.env)) {
  if (/_API_KEY$|_API_BASE$|^OPENAI_BASE_URL$|^SVC_|^MODEL$|^ENABLED_PROMPTS$|^OVERRIDE_MAX_/.test(name)) {
    delete process.env[name]
  }
}
process.env.HOME = mkdtempSync(join(tmpdir(), "dupin-test-home-"))
// Warnings the tests provoke on purpose (retries, unknown models) would bury real failures.
setLogLevel("ERROR")
