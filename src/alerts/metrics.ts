import { INVESTIGATION_STATUSES, type InvestigationStatus } from "../store/investigation.ts"

type Labels = Record<string, string>

/**
 * What this face needs of a metrics registry: the server's (`server/metrics.ts`) fits. Stated here
 * so `alerts/` does not import `server/`, which imports `alerts/` (folders have no cycles).
 */
export type MetricsRegistryLike = {
  counter(name: string, help: string): { inc(labels?: Labels, by?: number): void }
  gauge(name: string, help: string): { add(by: number, labels?: Labels): void; get(labels?: Labels): number }
  histogram(
    name: string,
    help: string,
    buckets: readonly number[],
  ): { observe(value: number, labels?: Labels): void }
}

const DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800]
const WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600]

/** The alert face's series on the server's `/metrics` registry. */
export class AlertMetrics {
  readonly alerts
  readonly investigations
  readonly queueDepth
  readonly duration
  readonly queueWait
  readonly deliveries

  constructor(registry: MetricsRegistryLike) {
    this.alerts = registry.counter(
      "dupin_alerts_received_total",
      "Alerts received by outcome (created, deduplicated, refused, resolved).",
    )
    this.investigations = registry.gauge("dupin_investigations", "Investigations in the store by status.")
    this.queueDepth = registry.gauge("dupin_investigation_queue_depth", "Investigations waiting to run.")
    this.duration = registry.histogram(
      "dupin_investigation_duration_seconds",
      "Investigation run time by outcome (done, failed).",
      DURATION_BUCKETS,
    )
    this.queueWait = registry.histogram(
      "dupin_investigation_queue_wait_seconds",
      "Time from intake to the start of the run.",
      WAIT_BUCKETS,
    )
    this.deliveries = registry.counter(
      "dupin_sink_deliveries_total",
      "Delivery attempts by sink type and outcome (ok, failed).",
    )
  }

  /** Sets the by-status gauges from the store's counts (gauges only `add`, so by difference). */
  setCounts(counts: Record<InvestigationStatus, number>): void {
    for (const status of INVESTIGATION_STATUSES) {
      this.investigations.add(counts[status] - this.investigations.get({ status }), { status })
    }
    this.queueDepth.add(counts.queued - this.queueDepth.get())
  }
}
