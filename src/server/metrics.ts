/**
 * A tiny Prometheus registry: counters, gauges and histograms with labels, rendered in the text
 * exposition format. Enough for `/metrics` without a dependency.
 */
type Labels = Record<string, string>

interface Metric {
  render(): string
}

export class MetricsRegistry {
  readonly #metrics: Metric[] = []

  counter(name: string, help: string): Counter {
    return this.#add(new Counter(name, help))
  }

  gauge(name: string, help: string): Gauge {
    return this.#add(new Gauge(name, help))
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.#add(new Histogram(name, help, buckets))
  }

  render(): string {
    return this.#metrics.map((m) => m.render()).join("")
  }

  #add<T extends Metric>(metric: T): T {
    this.#metrics.push(metric)
    return metric
  }
}

abstract class Series implements Metric {
  protected readonly values = new Map<string, number>()
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: string,
  ) {}

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`]
    for (const [labels, value] of this.values) lines.push(`${this.name}${labels} ${formatNumber(value)}`)
    return `${lines.join("\n")}\n`
  }
}

export class Counter extends Series {
  constructor(name: string, help: string) {
    super(name, help, "counter")
  }

  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) return // counters only go up; NaN and negatives are dropped
    const key = labelText(labels)
    this.values.set(key, (this.values.get(key) ?? 0) + by)
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels)) ?? 0
  }
}

export class Gauge extends Series {
  constructor(name: string, help: string) {
    super(name, help, "gauge")
  }

  add(by: number, labels: Labels = {}): void {
    const key = labelText(labels)
    this.values.set(key, (this.values.get(key) ?? 0) + by)
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels)) ?? 0
  }
}

export class Histogram implements Metric {
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>()
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {}

  observe(value: number, labels: Labels = {}): void {
    const key = labelText(labels)
    let series = this.#series.get(key)
    if (!series) {
      series = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }
      this.#series.set(key, series)
    }
    this.buckets.forEach((bound, i) => {
      if (value <= bound && series) series.counts[i] = (series.counts[i] ?? 0) + 1
    })
    series.sum += value
    series.count += 1
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`]
    for (const s of this.#series.values()) {
      this.buckets.forEach((bound, i) => {
        lines.push(
          `${this.name}_bucket${labelText({ ...s.labels, le: formatNumber(bound) })} ${s.counts[i] ?? 0}`,
        )
      })
      lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: "+Inf" })} ${s.count}`)
      lines.push(`${this.name}_sum${labelText(s.labels)} ${formatNumber(s.sum)}`)
      lines.push(`${this.name}_count${labelText(s.labels)} ${s.count}`)
    }
    return `${lines.join("\n")}\n`
  }
}

function labelText(labels: Labels): string {
  const entries = Object.entries(labels)
  if (entries.length === 0) return ""
  const escaped = entries.map(
    ([k, v]) => `${k}="${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")}"`,
  )
  return `{${escaped.join(",")}}`
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN"
  if (n === Number.POSITIVE_INFINITY) return "+Inf"
  if (n === Number.NEGATIVE_INFINITY) return "-Inf"
  return String(n)
}
