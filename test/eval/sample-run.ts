/**
 * One full run of `evals/` against the scripted provider, to see the report's format:
 * `bun test/eval/sample-run.ts [path to dupin binary]` (default: the source entry).
 */
import { join } from "node:path"
import { loadCases } from "../../src/eval/load-cases.ts"
import { startFakeProvider } from "../support/fake-provider.ts"
import { scriptedEvalStep } from "./scripted-cases.ts"

const root = join(import.meta.dir, "../..")
const cases = loadCases([join(root, "evals")])
const fake = await startFakeProvider()
const step = scriptedEvalStep(cases, { wrong: new Set(["15_nothing_wrong"]) })
fake.script(...Array.from({ length: 500 }, () => step))
const binary = process.argv[2]
const command = binary ? [binary] : [process.execPath, join(root, "src/main.ts")]
const proc = Bun.spawn(
  [
    ...command,
    "eval",
    join(root, "evals"),
    "--model",
    "openai/gpt-4.1,openai/gpt-4.1-mini",
    ...process.argv.slice(3),
  ],
  {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      OPENAI_API_KEY: "test",
      OPENAI_BASE_URL: fake.url,
    },
    stdout: "inherit",
    stderr: "inherit",
  },
)
const code = await proc.exited
await fake.stop()
process.exit(code)
