import { describe, expect, test } from "bun:test"
import { markdownReport, percentile, summarize } from "../../src/eval/report.ts"
import type { CaseRun } from "../../src/eval/run-case.ts"

/** A run of the report, with the numbers a test sets and the rest left neutral. */
function run(over: Partial<CaseRun> & Pick<CaseRun, "case" | "model" | "status">): CaseRun {
  return {
    iteration: 1,
    tags: [],
    latency_ms: 0,
    tokens: 0,
    cost: 0,
    llm_calls: 1,
    tool_calls: 0,
    mock_misses: [],
    rate_limit_retries: 0,
    answer: "a",
    judge: { pass: over.status === "pass", reasoning: "r" },
    judge_tokens: 0,
    error: null,
    ...over,
  }
}

const RUNS: CaseRun[] = [
  ...Array.from({ length: 10 }, (_, n) =>
    run({
      case: `k${n}`,
      model: "m1",
      status: n < 7 ? "pass" : "fail",
      tags: n < 5 ? ["kubernetes"] : ["linux"],
      latency_ms: (n + 1) * 1000,
      tokens: 1000 * (n + 1),
      cost: 0.01 * (n + 1),
      tool_calls: n,
    }),
  ),
  run({ case: "t", model: "m1", status: "timeout", tags: ["linux"], latency_ms: 300_000, tokens: 99_999 }),
  run({ case: "e", model: "m1", status: "error", tags: ["linux"], error: "rejected the request" }),
  run({
    case: "k0",
    model: "m2",
    status: "pass",
    tags: ["kubernetes"],
    latency_ms: 2000,
    tokens: 500,
    cost: 0.002,
    tool_calls: 3,
  }),
]

describe("the report", () => {
  test("per model and per tag: pass rate, p50/p95 latency, mean tokens, cost and tool calls per case", () => {
    const rows = summarize(RUNS)
    expect(rows.map((r) => [r.model, r.tag, r.runs])).toEqual([
      ["m1", null, 12],
      ["m1", "kubernetes", 5],
      ["m1", "linux", 7],
      ["m2", null, 1],
      ["m2", "kubernetes", 1],
    ])
    const [all, kubernetes, linux] = rows
    // 7 passed of 11 scored (10 answered + 1 timeout); the provider error is not dupin's score.
    expect(all).toMatchObject({ passed: 7, failed: 3, timed_out: 1, errors: 1 })
    expect(all?.pass_rate).toBeCloseTo(7 / 11, 10)
    // Latency, tokens, cost and tool calls over the 10 answered runs (1..10 s, 1k..10k tokens).
    expect(all).toMatchObject({
      p50_latency_ms: 5000,
      p95_latency_ms: 10_000,
      mean_tokens: 5500,
      mean_tool_calls: 4.5,
    })
    expect(all?.mean_cost).toBeCloseTo(0.055, 10)
    expect(kubernetes).toMatchObject({
      pass_rate: 1,
      p50_latency_ms: 3000,
      p95_latency_ms: 5000,
      mean_tokens: 3000,
    })
    expect(linux).toMatchObject({ passed: 2, failed: 3, timed_out: 1, errors: 1, p50_latency_ms: 8000 })
    expect(linux?.pass_rate).toBeCloseTo(2 / 6, 10)
    expect(rows[3]).toMatchObject({
      pass_rate: 1,
      p50_latency_ms: 2000,
      mean_tokens: 500,
      mean_cost: 0.002,
      mean_tool_calls: 3,
    })
  })

  test("nearest-rank percentiles", () => {
    expect(percentile([], 0.5)).toBeNull()
    expect(percentile([7], 0.95)).toBe(7)
    const hundred = Array.from({ length: 100 }, (_, n) => n + 1)
    expect([percentile(hundred, 0.5), percentile(hundred, 0.95)]).toEqual([50, 95])
  })

  test("the markdown table has a row per model and tag; misses and skips are listed under it", () => {
    const table = markdownReport(
      { runs: RUNS, skipped: [{ case: "later", reason: "needs a live cluster" }] },
      "m1",
    )
    const lines = table.split("\n")
    expect(lines[0]).toBe("Judge: m1")
    expect(lines[2]).toBe(
      "| model | tag | runs | pass rate | passed | failed | timeouts | errors | p50 latency | p95 latency | tokens/case | cost/case | tool calls/case |",
    )
    expect(lines).toContain(
      "| m1 | **all** | 12 | 64 % | 7 | 3 | 1 | 1 | 5.0 s | 10.0 s | 5,500 | $0.06 | 4.5 |",
    )
    expect(lines).toContain(
      "| m2 | kubernetes | 1 | 100 % | 1 | 0 | 0 | 0 | 2.0 s | 2.0 s | 500 | $0.0020 | 3.0 |",
    )
    expect(table).toContain("- t (m1, #1): timeout")
    expect(table).toContain("- e (m1, #1): error — rejected the request")
    expect(table).toContain("Skipped:\n\n- later: needs a live cluster")
  })
})
