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
      judge: { pass: true, reasoning: "1. present" },
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

  test("a malformed mock file is exit 2 naming the file, the line and the key", async () => {
    const root = caseTree({
      bad: {
        "test_case.yaml": "user_prompt: q\nexpected_output: x\n",
        "describe.txt": '{"tool_name": "kubectl_describe", "match_param": {}}\n{"status": "success"}\nout\n',
      },
    })
    const result = await runCli(["eval", root], { env: cliEnv() })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'bad/describe.txt: line 1: unknown key "match_param": did you mean match_params?',
    )
  }, 120_000)

  test("tags no case carries are a usage error", async () => {
    const result = await runCli(["eval", suite(), "--tags", "nope"], { env: cliEnv() })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("no case has any of the tags nope")
  }, 120_000)
  test("--model a,b --judge --iterations --tags: the markdown table on stdout, exit 0 with a failing case", async () => {
    const root = caseTree({
      pod: {
        "test_case.yaml":
          "user_prompt: Why does api-0 restart?\nexpected_output: [api-0 is OOMKilled]\ntags: [kubernetes]\n",
        "describe.txt": mockText("kubectl_describe", { kind: "pod", name: "api-0" }, "Reason: OOMKilled\n"),
      },
      disk: {
        "test_case.yaml": "user_prompt: Is /var full?\nexpected_output: [/var is full]\ntags: [linux]\n",
        "df.txt": mockText("host_disk_usage", null, "/dev/sdb1 xfs 50G 50G 0 100% /var\n", "linux/host"),
      },
      other: {
        "test_case.yaml": "user_prompt: Anything else?\nexpected_output: [no]\ntags: [other]\n",
      },
    })
    fake = await startFakeProvider()
    const step = scriptedEvalStep(loadCases([root]), { wrong: new Set(["disk"]) })
    fake.script(...Array.from({ length: 40 }, () => step))
    const result = await runCli(
      [
        "eval",
        root,
        "--model",
        "openai/gpt-4.1,openai/gpt-4.1-mini",
        "--judge",
        "openai/gpt-4o",
        "--iterations",
        "2",
        "--tags",
        "kubernetes,linux",
        "--parallel",
        "3",
      ],
      { env: cliEnv(fake) },
    )
    expect(result.code).toBe(0)
    // 2 cases (other is left out by --tags) × 2 models × 2 iterations, each on stderr as it finishes.
    expect(result.stderr).toContain("2 cases × 2 models × 2 iterations, judge openai/gpt-4o, 3 at a time")
    expect(result.stderr.match(/^\[\s*\d\/8\] /gm)).toHaveLength(8)
    expect(result.stdout).toContain("Judge: openai/gpt-4o")
    for (const model of ["openai/gpt-4.1", "openai/gpt-4.1-mini"]) {
      expect(result.stdout).toContain(`| ${model} | **all** | 4 | 50 % | 2 | 2 |`)
      expect(result.stdout).toContain(`| ${model} | kubernetes | 2 | 100 % |`)
      expect(result.stdout).toContain(`| ${model} | linux | 2 | 0 % |`)
      expect(result.stdout).toContain(`- disk (${model}, #2): fail — 1. missing`)
    }
    expect(result.stdout).not.toContain("other")
    const judged = fake.requests.filter((r) => r.body?.response_format !== undefined)
    expect(judged).toHaveLength(8)
    expect(new Set(judged.map((r) => r.body?.model))).toEqual(new Set(["gpt-4o"]))
  }, 120_000)
  test("without --judge the first --model judges every model's answers", async () => {
    const root = suite()
    fake = await startFakeProvider()
    const step = scriptedEvalStep(loadCases([root]))
    fake.script(...Array.from({ length: 10 }, () => step))
    const result = await runCli(["eval", root, "--model", "openai/gpt-4.1-mini,openai/gpt-4.1", "--json"], {
      env: cliEnv(fake),
    })
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report.judge).toBe("openai/gpt-4.1-mini")
    expect(report.runs.map((r: { model: string; status: string }) => `${r.model} ${r.status}`)).toEqual([
      "openai/gpt-4.1-mini pass",
      "openai/gpt-4.1 pass",
    ])
    const judged = fake.requests.filter((r) => r.body?.response_format !== undefined)
    expect(judged.map((r) => r.body?.model)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini"])
  }, 120_000)
})
