import type { CaseRun } from "./run-case.ts"
import type { EvalResult } from "./runner.ts"

/** One line of the summary: one model, over all cases (`tag: null`) or over one tag's cases. */
export type SummaryRow = {
  model: string
  tag: string | null
  runs: number
  passed: number
  failed: number
  timed_out: number
  errors: number
  /** passed / (passed + failed + timed out): provider errors say nothing about dupin. Null with no scored run. */
  pass_rate: number | null
  p50_latency_ms: number | null
  p95_latency_ms: number | null
  mean_tokens: number | null
  mean_cost: number | null
  mean_tool_calls: number | null
}

export function summarize(runs: readonly CaseRun[]): SummaryRow[] {
  const models = [...new Set(runs.map((r) => r.model))]
  return models.flatMap((model) => {
    const mine = runs.filter((r) => r.model === model)
    const tags = [...new Set(mine.flatMap((r) => r.tags))].sort()
    return [
      row(model, null, mine),
      ...tags.map((tag) =>
        row(
          model,
          tag,
          mine.filter((r) => r.tags.includes(tag)),
        ),
      ),
    ]
  })
}

function row(model: string, tag: string | null, runs: readonly CaseRun[]): SummaryRow {
  const count = (status: CaseRun["status"]) => runs.filter((r) => r.status === status).length
  const passed = count("pass")
  const scored = passed + count("fail") + count("timeout")
  // Latency, tokens and tool calls describe answered runs; a timeout's numbers are the deadline's.
  const answered = runs.filter((r) => r.status === "pass" || r.status === "fail")
  const latencies = answered.map((r) => r.latency_ms).sort((a, b) => a - b)
  return {
    model,
    tag,
    runs: runs.length,
    passed,
    failed: count("fail"),
    timed_out: count("timeout"),
    errors: count("error"),
    pass_rate: scored ? passed / scored : null,
    p50_latency_ms: percentile(latencies, 0.5),
    p95_latency_ms: percentile(latencies, 0.95),
    mean_tokens: mean(answered.map((r) => r.tokens)),
    mean_cost: mean(answered.map((r) => r.cost)),
    mean_tool_calls: mean(answered.map((r) => r.tool_calls)),
  }
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? null
}

function mean(values: readonly number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null
}

/** The markdown report: the summary table, then what did not pass and what was skipped. */
export function markdownReport(
  result: Pick<EvalResult, "runs" | "skipped"> & Partial<EvalResult>,
  judge: string,
): string {
  const header =
    "| model | tag | runs | pass rate | passed | failed | timeouts | errors | p50 latency | p95 latency | tokens/case | cost/case | tool calls/case |"
  const rule = `|${"---|".repeat(13)}`
  const lines = summarize(result.runs).map((r) =>
    [
      r.model,
      r.tag ?? "**all**",
      r.runs,
      r.pass_rate === null ? "–" : `${(r.pass_rate * 100).toFixed(0)} %`,
      r.passed,
      r.failed,
      r.timed_out,
      r.errors,
      seconds(r.p50_latency_ms),
      seconds(r.p95_latency_ms),
      r.mean_tokens === null ? "–" : Math.round(r.mean_tokens).toLocaleString("en-US"),
      r.mean_cost === null ? "–" : dollars(r.mean_cost),
      r.mean_tool_calls === null ? "–" : r.mean_tool_calls.toFixed(1),
    ].join(" | "),
  )
  const out = [`Judge: ${judge}`, "", header, rule, ...lines.map((l) => `| ${l} |`)]
  if (result.interrupted)
    out.push(
      "",
      `Interrupted: ${result.runs.length} of ${result.planned ?? "?"} runs finished; the rest did not run.`,
    )
  const missed = result.runs.filter((r) => r.status !== "pass")
  if (missed.length) {
    out.push("", "Not passed:", "")
    for (const r of missed) out.push(`- ${r.case} (${r.model}, #${r.iteration}): ${r.status} — ${why(r)}`)
  }
  if (result.skipped.length) {
    out.push("", "Skipped:", "")
    for (const s of result.skipped) out.push(`- ${s.case}: ${s.reason}`)
  }
  return `${out.join("\n")}\n`
}

function why(run: CaseRun): string {
  const text = run.error ?? run.judge?.reasoning ?? ""
  const line = text.replace(/\s+/g, " ").trim()
  const misses = run.mock_misses.length ? ` (${run.mock_misses.length} calls without a mock)` : ""
  return `${line.length > 160 ? `${line.slice(0, 159)}…` : line}${misses}`
}

function seconds(ms: number | null): string {
  return ms === null ? "–" : `${(ms / 1000).toFixed(1)} s`
}

/** Cents for real runs, significant digits for tiny ones (a scripted or very cheap model). */
function dollars(value: number): string {
  return value === 0 || value >= 0.01 ? `$${value.toFixed(2)}` : `$${value.toPrecision(2)}`
}
