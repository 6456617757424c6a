/** The stored shape of one alert investigation (CONTRACT §10). */

export type InvestigationStatus = "queued" | "running" | "done" | "failed"

export const INVESTIGATION_STATUSES: readonly InvestigationStatus[] = ["queued", "running", "done", "failed"]

/** One firing alert as intake accepted it (values already capped). */
export type AlertInput = {
  fingerprint: string
  status: string
  labels: Record<string, string>
  annotations: Record<string, string>
  startsAt: string | null
  endsAt: string | null
  generatorURL: string | null
  /** The Alertmanager `externalURL` the alert came through, when it said. */
  externalURL?: string | null
  receiver?: string | null
}

/** One sink's delivery of a finished investigation; updated at every attempt. */
export type Delivery = {
  sink: string
  ok: boolean
  attempts: number
  last_status: number | null
  last_error: string | null
  delivered_at: string | null
}

/** What a finished run leaves: the chat response body's fields. */
export type InvestigationResult = {
  analysis: string | null
  tool_calls: unknown[]
  conversation_history: unknown[]
  metadata: Record<string, unknown> | null
}

export type Investigation = {
  id: string
  status: InvestigationStatus
  fingerprint: string
  alert: AlertInput
  /** Epoch milliseconds. */
  createdAt: number
  startedAt: number | null
  finishedAt: number | null
  /** Times a replica claimed it (more than 1 after a crash, a drain or a lost lease). */
  attempts: number
  result: InvestigationResult | null
  error: string | null
  deliveries: Delivery[]
}

/** The API's JSON for one investigation (`GET /api/investigations/{id}`). */
export function investigationWire(inv: Investigation): Record<string, unknown> {
  return {
    id: inv.id,
    status: inv.status,
    fingerprint: inv.fingerprint,
    alert: inv.alert,
    created_at: iso(inv.createdAt),
    started_at: iso(inv.startedAt),
    finished_at: iso(inv.finishedAt),
    analysis: inv.result?.analysis ?? null,
    tool_calls: inv.result?.tool_calls ?? [],
    conversation_history: inv.result?.conversation_history ?? [],
    metadata: inv.result?.metadata ?? null,
    error: inv.error,
    deliveries: inv.deliveries,
    attempts: inv.attempts,
  }
}

/** The list's lighter item: no history or tool output, which can be megabytes each. */
export function investigationSummaryWire(inv: Investigation): Record<string, unknown> {
  return {
    id: inv.id,
    status: inv.status,
    fingerprint: inv.fingerprint,
    alertname: inv.alert.labels.alertname ?? null,
    severity: inv.alert.labels.severity ?? null,
    created_at: iso(inv.createdAt),
    started_at: iso(inv.startedAt),
    finished_at: iso(inv.finishedAt),
    error: inv.error,
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString()
}
