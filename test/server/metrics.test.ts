import { expect, test } from "bun:test"
import { MetricsRegistry } from "../../src/server/metrics.ts"
import { startHarness } from "./harness.ts"

test("Prometheus text: HELP/TYPE, labels escaped, counters only go up, histogram buckets cumulative", () => {
  const registry = new MetricsRegistry()
  const counter = registry.counter("c_total", "A counter.")
  const gauge = registry.gauge("g", "A gauge.")
  const histogram = registry.histogram("h_seconds", "A histogram.", [0.1, 1])
  counter.inc({ path: 'a"b\\c\nd' })
  counter.inc({ path: 'a"b\\c\nd' }, 2)
  counter.inc({ path: "x" }, -5)
  counter.inc({ path: "x" }, Number.NaN)
  gauge.add(3)
  gauge.add(-1)
  histogram.observe(0.05, { route: "/r" })
  histogram.observe(0.5, { route: "/r" })
  histogram.observe(5, { route: "/r" })
  expect(registry.render()).toBe(
    [
      "# HELP c_total A counter.",
      "# TYPE c_total counter",
      'c_total{path="a\\"b\\\\c\\nd"} 3',
      "# HELP g A gauge.",
      "# TYPE g gauge",
      "g 2",
      "# HELP h_seconds A histogram.",
      "# TYPE h_seconds histogram",
      'h_seconds_bucket{route="/r",le="0.1"} 1',
      'h_seconds_bucket{route="/r",le="1"} 2',
      'h_seconds_bucket{route="/r",le="+Inf"} 3',
      'h_seconds_sum{route="/r"} 5.55',
      'h_seconds_count{route="/r"} 3',
      "",
    ].join("\n"),
  )
})

test("/metrics: tool names the model invents are counted as `unknown`, configured ones by name", async () => {
  const h = await startHarness()
  try {
    const invented = Array.from({ length: 200 }, (_, i) => ({
      id: `x${i}`,
      name: `made_up_${i}_${"z".repeat(200)}`,
      arguments: {},
    }))
    h.fake.script(
      { toolCalls: [...invented, { id: "n1", name: "note", arguments: { text: "hi" } }] },
      { content: "done" },
    )
    expect((await h.post({ ask: "go" })).status).toBe(200)
    const text = await (await fetch(`${h.url}/metrics`)).text()
    expect(text).not.toContain("made_up_")
    expect(text).toContain('dupin_tool_calls_total{tool="unknown",status="error"} 200')
    expect(text).toContain('dupin_tool_calls_total{tool="note",status="success"} 1')
    expect(text.length).toBeLessThan(20_000)
  } finally {
    await h.stop()
  }
})
