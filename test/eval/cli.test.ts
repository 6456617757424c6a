import { afterEach, describe, expect, test } from "bun:test"
import { loadCases } from "../../src/eval/load-cases.ts"
import { cliEnv, runCli } from "../cli/support.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { scriptedEvalStep } from "./scripted-cases.ts"
import { caseTree, mockText } from "./support.ts"

let fake: FakeProvider | undefined
afterEach(async () => {
  await fake?.stop()
  fake = undefined
})

function suite(): string {
  return caseTree({
    pod: {
      "test_case.yaml":
        "user_prompt: Why does api-0 restart?\nexpected_output: [api-0 is OOMKilled]\ntags: [kubernetes]\n",
      "describe.txt": mockText("kubectl_describe", { kind: "pod", name: "api-0" }, "Reason: OOMKilled\n"),
    },
    later: {
      "test_case.yaml": "user_prompt: q\nexpected_output: [x]\nskip: true\nskip_reason: not ready yet\n",
    },
  })
}

describe("dupin eval (command line)", () => {
  test("runs the cases: progress on stderr, every run in --json on stdout, exit 0", async () => {
    const root = suite()
    fake = await startFakeProvider()
    const step = scriptedEvalStep(loadCases([root]))
    fake.script(step, step, step)
    const result = await runCli(["eval", root, "--json"], { env: cliEnv(fake) })
    expect(result.stderr).toContain("[1/1] pass    pod (openai/gpt-4o #1)")
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report.judge).toBe("openai/gpt-4o")
    expect(report.runs).toHaveLength(1)
    expect(report.runs[0]).toMatchObject({
      case: "pod",
      status: "pass",
      tool_calls: 1,
      judge: { pass: true },
    })
    expect(report.skipped).toEqual([{ case: "later", reason: "not ready yet" }])
    expect(report.summary[0]).toMatchObject({ model: "openai/gpt-4o", tag: null, pass_rate: 1 })
  }, 120_000)

  test("a bad fixture is exit 2 with file and key named, before any model call", async () => {
    const root = caseTree({ bad: { "test_case.yaml": "user_prompt: q\nexpected: x\n" } })
    fake = await startFakeProvider()
    const result = await runCli(["eval", root], { env: cliEnv(fake) })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("bad/test_case.yaml: expected: unknown key")
    expect(fake.requests).toHaveLength(0)
  }, 120_000)

  test("tags no case carries are a usage error", async () => {
    const result = await runCli(["eval", suite(), "--tags", "nope"], { env: cliEnv() })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("no case has any of the tags nope")
  }, 120_000)
})
