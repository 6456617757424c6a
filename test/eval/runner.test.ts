import { afterEach, beforeAll, describe, expect, test } from "bun:test"
import { loadCases, withTags } from "../../src/eval/load-cases.ts"
import { markdownReport, summarize } from "../../src/eval/report.ts"
import { runEval } from "../../src/eval/runner.ts"
import type { ChatModel, CompletionRequest } from "../../src/llm/types.ts"
import {
  type FakeProvider,
  type FakeStep,
  type RecordedRequest,
  startFakeProvider,
} from "../support/fake-provider.ts"
import { scriptedEvalStep } from "./scripted-cases.ts"
import { caseTree, fakeModel, localModel, mockText, plan } from "./support.ts"

let fake: FakeProvider
// The first run pays once for the tokenizer's ranks, the bundled toolsets' parse and their
// schemas' compilation: seconds of CPU on a shared runner, which would eat the short deadlines
// below. A throwaway run pays it here.
beforeAll(async () => {
  const cases = twoCases().slice(0, 1)
  const warm = await startFakeProvider()
  const step = scriptedEvalStep(cases)
  warm.script(step, step, step)
  await runEval(plan({ cases, models: [fakeModel(warm)] }), new AbortController().signal)
  await warm.stop()
}, 60_000)
afterEach(async () => {
  await fake?.stop()
})

const POD = "Name: api-0\n    Last State: Terminated\n      Reason: OOMKilled\n"

/** Two cases: the pod one (tagged kubernetes) and the disk one (tagged linux). */
function twoCases() {
  return loadCases([
    caseTree({
      "a-pod": {
        "test_case.yaml":
          "user_prompt: Why does api-0 restart?\nexpected_output:\n  - api-0 is OOMKilled\ntags: [kubernetes]\n",
        "describe.txt": mockText("kubectl_describe", { kind: "pod", name: "api-0" }, POD),
      },
      "b-disk": {
        "test_case.yaml":
          "user_prompt: Is the disk full?\nexpected_output:\n  - /var is full\ntags: [linux]\n",
        "df.txt": mockText("host_disk_usage", null, "/dev/sdb1 xfs 50G 50G 0 100% /var\n", "linux/host"),
      },
    }),
  ])
}

const isJudge = (r: RecordedRequest) => r.body?.response_format !== undefined
const lastToolText = (r: RecordedRequest) =>
  ((r.body?.messages ?? []) as { role: string; content: string }[])
    .filter((m) => m.role === "tool")
    .map((m) => m.content)

describe("dupin eval runner", () => {
  test("scores a passing and a failing case; the judge's reasoning is kept", async () => {
    const cases = twoCases()
    fake = await startFakeProvider()
    const step = scriptedEvalStep(cases, { wrong: new Set(["b-disk"]) })
    fake.script(...Array.from({ length: 20 }, () => step))
    const result = await runEval(plan({ cases, models: [fakeModel(fake)] }), new AbortController().signal)
    expect(result.runs.map((r) => [r.case, r.status])).toEqual([
      ["a-pod", "pass"],
      ["b-disk", "fail"],
    ])
    expect(result.runs[0]?.judge?.reasoning).toBe("1. present")
    expect(result.runs[1]?.judge?.reasoning).toBe("1. missing")
    expect(result.runs[0]?.tool_calls).toBe(1)
    expect(result.runs[0]?.tokens).toBeGreaterThan(0)
    expect(result.runs[0]?.judge_tokens).toBe(460)
    const [all] = summarize(result.runs)
    expect(all).toMatchObject({ tag: null, runs: 2, passed: 1, failed: 1, pass_rate: 0.5 })
  })

  test("the judge gets question, expectations and answer with a strict verdict schema; the agent never sees expected_output", async () => {
    const cases = twoCases().slice(0, 1)
    fake = await startFakeProvider()
    const step = scriptedEvalStep(cases)
    fake.script(step, step, step)
    await runEval(plan({ cases, models: [fakeModel(fake)] }), new AbortController().signal)
    const judge = fake.requests.filter(isJudge)
    expect(judge).toHaveLength(1)
    const format = judge[0]?.body?.response_format as { type: string; json_schema: Record<string, unknown> }
    expect(format.type).toBe("json_schema")
    expect(format.json_schema.strict).toBe(true)
    expect(format.json_schema.schema).toMatchObject({
      required: ["reasoning", "pass"],
      additionalProperties: false,
      properties: { reasoning: { type: "string" }, pass: { type: "boolean" } },
    })
    const text = JSON.stringify(judge[0]?.body?.messages)
    for (const part of ["Why does api-0 restart?", "api-0 is OOMKilled", "<<<ANSWER"])
      expect(text).toContain(part)
    const agent = fake.requests.filter((r) => r.path.endsWith("/chat/completions") && !isJudge(r))
    expect(agent).toHaveLength(2)
    for (const r of agent) expect(JSON.stringify(r.body)).not.toContain("api-0 is OOMKilled")
  })

  test("a mock is served only to the tool it names, with the parameters it names", async () => {
    const cases = twoCases().slice(0, 1)
    fake = await startFakeProvider()
    fake.script(
      {
        toolCalls: [
          { name: "kubectl_describe", arguments: { kind: "pod", name: "api-0", namespace: "prod" } },
          { name: "kubectl_describe", arguments: { kind: "pod", name: "api-1" } },
          { name: "kubectl_get_yaml", arguments: { kind: "pod", name: "api-0" } },
        ],
      },
      { content: "api-0 is OOMKilled" },
      { content: JSON.stringify({ reasoning: "ok", pass: true }) },
    )
    const result = await runEval(plan({ cases, models: [fakeModel(fake)] }), new AbortController().signal)
    const results = lastToolText(fake.requests[1] as RecordedRequest)
    expect(results).toHaveLength(3)
    expect(results[0]).toContain("OOMKilled")
    expect(results[1]).toContain(
      'No mock output for kubectl_describe with parameters {"kind":"pod","name":"api-1"}',
    )
    expect(results[2]).toContain("No mock output for kubectl_get_yaml")
    expect(results[2]).not.toContain("OOMKilled")
    expect(result.runs[0]?.mock_misses.map((m) => m.tool)).toEqual(["kubectl_describe", "kubectl_get_yaml"])
    expect(result.runs[0]?.status).toBe("pass")
  })

  test("several models and iterations: every run is reported, the first model judges", async () => {
    const cases = twoCases().slice(0, 1)
    fake = await startFakeProvider()
    const step = scriptedEvalStep(cases)
    fake.script(...Array.from({ length: 12 }, () => step))
    const models = [fakeModel(fake, "openai/gpt-4.1"), fakeModel(fake, "openai/gpt-4.1-mini")]
    const result = await runEval(plan({ cases, models, iterations: 2 }), new AbortController().signal)
    expect(result.runs.map((r) => `${r.model}#${r.iteration}:${r.status}`)).toEqual([
      "openai/gpt-4.1#1:pass",
      "openai/gpt-4.1#2:pass",
      "openai/gpt-4.1-mini#1:pass",
      "openai/gpt-4.1-mini#2:pass",
    ])
    const agentModels = fake.requests.filter((r) => !isJudge(r)).map((r) => r.body?.model)
    expect(new Set(agentModels)).toEqual(new Set(["gpt-4.1", "gpt-4.1-mini"]))
    expect(new Set(fake.requests.filter(isJudge).map((r) => r.body?.model))).toEqual(new Set(["gpt-4.1"]))
    expect(summarize(result.runs).filter((r) => r.tag === null)).toHaveLength(2)
  })

  test("tags select cases, and the report has a row per model and tag", async () => {
    const cases = twoCases()
    expect(withTags(cases, ["linux"]).map((c) => c.id)).toEqual(["b-disk"])
    expect(withTags(cases, []).map((c) => c.id)).toEqual(["a-pod", "b-disk"])
    fake = await startFakeProvider()
    const step = scriptedEvalStep(cases)
    fake.script(...Array.from({ length: 20 }, () => step))
    const result = await runEval(plan({ cases, models: [fakeModel(fake)] }), new AbortController().signal)
    expect(summarize(result.runs).map((r) => [r.tag, r.runs])).toEqual([
      [null, 2],
      ["kubernetes", 1],
      ["linux", 1],
    ])
    const table = markdownReport(result, "openai/gpt-4.1")
    expect(table).toContain("| openai/gpt-4.1 | kubernetes | 1 | 100 % |")
  })

  test("a rate-limited provider is waited out, not scored as a failure", async () => {
    const cases = twoCases().slice(0, 1)
    fake = await startFakeProvider()
    const step = scriptedEvalStep(cases)
    const limited: FakeStep = { status: 429, headers: { "retry-after-ms": "1" } }
    fake.script(limited, step, limited, step, step)
    // Two waits of 0.4 s, longer together than the case's whole deadline: they are the provider's
    // quota, so they neither use up the deadline nor count in the latency.
    const result = await runEval(
      plan({
        cases,
        models: [fakeModel(fake)],
        parallel: 1,
        deadlineMs: 600,
        patience: { attempts: 3, baseDelayMs: 400 },
      }),
      new AbortController().signal,
    )
    expect(result.runs[0]?.status).toBe("pass")
    expect(result.runs[0]?.rate_limit_retries).toBe(2)
    expect(result.runs[0]?.latency_ms).toBeLessThan(600)
    expect(fake.pending()).toBe(0)
  })

  test("a provider failure or a judge without its JSON is an error, left out of the pass rate", async () => {
    const cases = twoCases()
    fake = await startFakeProvider()
    const scripted = scriptedEvalStep(cases)
    const step = (r: RecordedRequest): FakeStep => {
      const text = JSON.stringify(r.body?.messages)
      if (!isJudge(r) && text.includes("Is the disk full?")) return { status: 400 }
      if (isJudge(r)) return { content: "It looks right to me." }
      return scripted(r)
    }
    fake.script(...Array.from({ length: 10 }, () => step))
    const result = await runEval(plan({ cases, models: [fakeModel(fake)] }), new AbortController().signal)
    expect(result.runs.map((r) => [r.case, r.status])).toEqual([
      ["a-pod", "error"],
      ["b-disk", "error"],
    ])
    expect(result.runs[0]?.error).toContain("judge: The judge did not return JSON")
    expect(result.runs[0]?.answer).toBe("- api-0 is OOMKilled")
    expect(result.runs[1]?.error).toContain("rejected the request")
    const [all] = summarize(result.runs)
    expect(all).toMatchObject({ errors: 2, pass_rate: null })
  })

  test("a case's conversation history and included files reach the agent", async () => {
    const history = [
      { role: "system", content: "You are the on-call assistant." },
      { role: "user", content: "Is api-0 up?" },
      { role: "assistant", content: "It restarted twice in the last hour." },
    ]
    const cases = loadCases([
      caseTree({
        followup: {
          "test_case.yaml":
            "user_prompt: Why does api-0 restart?\nexpected_output: [x]\ninclude_files: [runbook.md]\n",
          "conversation_history.json": JSON.stringify(history),
          "runbook.md": "Restarts of api-0 are usually memory.\n",
        },
      }),
    ])
    fake = await startFakeProvider()
    fake.script({ content: "x" }, { content: JSON.stringify({ reasoning: "ok", pass: true }) })
    const result = await runEval(plan({ cases, models: [fakeModel(fake)] }), new AbortController().signal)
    expect(result.runs[0]?.status).toBe("pass")
    const messages = fake.requests[0]?.body?.messages as { role: string; content: string }[]
    expect(messages.slice(0, 3)).toEqual(history)
    expect(messages[3]?.content).toContain("Why does api-0 restart?")
    expect(messages[3]?.content).toContain("Restarts of api-0 are usually memory.")
  })

  test("a case's mocked_date is the prompt's current time, and its cluster_name is in the system prompt", async () => {
    const cases = loadCases([
      caseTree({
        dated: {
          "test_case.yaml":
            'user_prompt: Why?\nexpected_output: [x]\nmocked_date: "2026-11-20T10:15:00Z"\ncluster_name: prod-eu-1\n',
        },
      }),
    ])
    fake = await startFakeProvider()
    fake.script({ content: "x" }, { content: JSON.stringify({ reasoning: "ok", pass: true }) })
    await runEval(plan({ cases, models: [fakeModel(fake)] }), new AbortController().signal)
    const messages = fake.requests[0]?.body?.messages as { role: string; content: string }[]
    expect(messages[1]?.content).toContain("Current time: 2026-11-20T10:15:00.000Z")
    expect(messages[0]?.content).toContain("prod-eu-1")
  })

  test("a case past its deadline is a timeout; the others still run", async () => {
    const cases = twoCases()
    fake = await startFakeProvider()
    const scripted = scriptedEvalStep(cases)
    const step = (r: RecordedRequest): FakeStep =>
      !isJudge(r) && JSON.stringify(r.body?.messages).includes("Is the disk full?")
        ? { hang: true }
        : scripted(r)
    fake.script(...Array.from({ length: 10 }, () => step))
    const started = performance.now()
    const result = await runEval(
      plan({ cases, models: [fakeModel(fake)], deadlineMs: 500 }),
      new AbortController().signal,
    )
    expect(performance.now() - started).toBeLessThan(5000)
    expect(result.runs.map((r) => [r.case, r.status])).toEqual([
      ["a-pod", "pass"],
      ["b-disk", "timeout"],
    ])
    expect(result.runs[1]?.error).toContain("no answer within 0.5 s")
    const [all] = summarize(result.runs)
    expect(all).toMatchObject({ timed_out: 1, pass_rate: 0.5 })
  })
  test("interrupted, it starts no more runs and reports the finished ones", async () => {
    const cases = numberedCases(4)
    const asked: string[] = []
    const controller = new AbortController()
    const model = answering("fine", (request) => {
      const question = JSON.stringify(request.messages).match(/question \d/)?.[0] ?? "?"
      asked.push(question)
      // The second case's agent is mid-answer when the eval is stopped; the provider call ends
      // with the abort, as a real one does.
      if (question === "question 1") {
        controller.abort()
        throw new DOMException("The operation was aborted.", "AbortError")
      }
    })
    const result = await runEval(plan({ cases, models: [model], parallel: 1 }), controller.signal)
    expect(result.interrupted).toBe(true)
    expect(result.planned).toBe(4)
    expect(result.runs.map((r) => [r.case, r.status])).toEqual([["c0", "pass"]])
    expect(asked).toEqual(["question 0", "question 1"])
    expect(markdownReport(result, "slow")).toContain("Interrupted: 1 of 4 runs finished")
  })
  test("cases run in parallel, never more at once than the plan allows", async () => {
    const cases = numberedCases(6)
    let inFlight = 0
    let most = 0
    // The agent's answer takes 50 ms, so runs that may overlap do; the judge answers at once.
    const model = answering("fine", async () => {
      inFlight++
      most = Math.max(most, inFlight)
      await Bun.sleep(50)
      inFlight--
    })
    const result = await runEval(plan({ cases, models: [model], parallel: 2 }), new AbortController().signal)
    expect(result.runs.map((r) => r.status)).toEqual(Array(6).fill("pass"))
    expect(most).toBe(2)
  })
})

/** A model whose agent answers `text` (after `onAgent` sees the request) and whose judge passes. */
function answering(text: string, onAgent: (request: CompletionRequest) => void | Promise<void>): ChatModel {
  const judging = (request: CompletionRequest) => request.responseFormat !== undefined
  return localModel(
    "slow",
    (request) => (judging(request) ? JSON.stringify({ reasoning: "1. present", pass: true }) : text),
    (request) => (judging(request) ? undefined : onAgent(request)),
  )
}

/** `n` cases c0…c{n-1} asking "question N", each expecting "fine". */
function numberedCases(n: number) {
  return loadCases([
    caseTree(
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `c${i}`,
          { "test_case.yaml": `user_prompt: question ${i}\nexpected_output: [fine]\n` },
        ]),
      ),
    ),
  ])
}
