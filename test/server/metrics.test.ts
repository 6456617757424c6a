import { expect, test } from "bun:test"
import { MetricsRegistry } from "../../src/server/metrics.ts"

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
