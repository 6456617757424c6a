import { useEffect, useState } from "preact/hooks"
import type { Delivery } from "../store/investigation.ts"
import { AlertsDisabled, getInvestigation, listInvestigations, Unauthorized } from "./api.ts"
import { html } from "./html.ts"
import { renderMarkdown } from "./markdown.ts"
import { ToolCard } from "./tool-card.ts"
import type { ToolEntry } from "./types.ts"

/**
 * Alert investigations (CONTRACT §10): the list, newest first, and one record in detail. Alert
 * labels and annotations come from whoever can post to Alertmanager, tool output from the
 * cluster, the analysis from the model: all of it is text, except the analysis, which is
 * markdown through the chat's sanitizer.
 */

/** How often a list or record with work still queued or running is fetched again. */
const POLL_MS = 1500
/** A sink's attempts before it gives up (docs/alerts.md, Sinks). */
const DELIVERY_ATTEMPTS = 5
const STATUSES = ["queued", "running", "done", "failed"] as const

type Summary = {
  id: string
  status: string
  alertname: string | null
  severity: string | null
  created_at: string | null
  error: string | null
}

type WireToolCall = {
  tool_call_id?: string
  tool_name?: string
  description?: string
  result?: { status?: string; data?: unknown; error?: string | null; params?: Record<string, unknown> }
}

type Record_ = {
  id: string
  status: string
  fingerprint: string
  alert: { labels?: Record<string, string>; annotations?: Record<string, string>; startsAt?: string | null }
  created_at: string | null
  started_at: string | null
  finished_at: string | null
  analysis: string | null
  tool_calls: WireToolCall[]
  error: string | null
  deliveries: Delivery[]
}

const active = (status: string | undefined) => status === "queued" || status === "running"

type Props = { onUnauthorized: (retry: () => void) => void }

export function Investigations({ onUnauthorized }: Props) {
  const [filter, setFilter] = useState("")
  const [list, setList] = useState<Summary[] | undefined>(undefined)
  const [disabled, setDisabled] = useState(false)
  const [failure, setFailure] = useState<string | undefined>(undefined)
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [record, setRecord] = useState<Record_ | undefined>(undefined)
  const [tick, setTick] = useState(0)

  const fail = (retry: () => void) => (error: unknown) => {
    if (error instanceof Unauthorized) onUnauthorized(retry)
    else if (error instanceof AlertsDisabled) setDisabled(true)
    else setFailure(String(error instanceof Error ? error.message : error))
  }

  useEffect(() => {
    let current = true
    const load = () =>
      listInvestigations(filter).then((body) => {
        if (!current) return
        setFailure(undefined)
        const items = (body as { investigations?: unknown }).investigations
        setList(Array.isArray(items) ? (items as Summary[]) : [])
      }, fail(load))
    load()
    // A slower answer for the previous filter must not replace this one's.
    return () => {
      current = false
    }
  }, [filter, tick])

  useEffect(() => {
    if (!selected) return
    let current = true
    const load = () =>
      getInvestigation(selected).then((body) => {
        if (!current) return
        setFailure(undefined)
        setRecord(body as Record_)
      }, fail(load))
    load()
    return () => {
      current = false
    }
  }, [selected, tick])

  // Poll while anything shown is still queued or running, or a delivery is still being retried.
  const retrying = record?.deliveries.some((d) => !d.ok && d.attempts < DELIVERY_ATTEMPTS) === true
  const polling = (list ?? []).some((i) => active(i.status)) || active(record?.status) || retrying
  useEffect(() => {
    if (!polling) return
    const timer = setInterval(() => setTick((t) => t + 1), POLL_MS)
    return () => clearInterval(timer)
  }, [polling])

  if (disabled)
    return html`<section class="investigations" aria-label="Investigations">
      <p class="empty" role="status">
        Alert investigations are not enabled on this server (<code>alerts.enabled</code> in its config).
      </p>
    </section>`

  const shown = record && record.id === selected ? record : undefined
  return html`
    <div class="investigations">
      <section class="inv-list" aria-label="Investigations">
        <label class="model">
          Status
          <select
            aria-label="Status"
            value=${filter}
            onChange=${(e: Event) => setFilter((e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">all</option>
            ${STATUSES.map((s) => html`<option key=${s} value=${s}>${s}</option>`)}
          </select>
        </label>
        ${failure && html`<p class="error" role="alert">${failure}</p>`}
        ${list === undefined && html`<p class="notice">Loading…</p>`}
        ${list?.length === 0 && html`<p class="notice">No investigations yet.</p>`}
        <ul>
          ${(list ?? []).map(
            (i) => html`<li key=${i.id}>
              <button
                type="button"
                class="inv-link"
                aria-current=${i.id === selected ? "true" : undefined}
                onClick=${() => setSelected(i.id)}
              >
                <strong>${i.alertname ?? "(no alertname)"}</strong>
                <span class=${`badge inv-${i.status}`}>${i.status}</span>
                <span class="notice">${[i.severity, time(i.created_at)].filter(Boolean).join(" · ")}</span>
              </button>
            </li>`,
          )}
        </ul>
      </section>
      ${
        shown
          ? html`<${Detail} inv=${shown} />`
          : html`<p class="empty inv-detail">${selected ? "Loading…" : "Select an investigation."}</p>`
      }
    </div>
  `
}

function Detail({ inv }: { inv: Record_ }) {
  const labels = inv.alert.labels ?? {}
  return html`
    <section class="inv-detail transcript" aria-label="Investigation detail">
      <h2>${labels.alertname ?? "(no alertname)"} <span class=${`badge inv-${inv.status}`}>${inv.status}</span></h2>
      <p class="notice">
        Created ${time(inv.created_at)}${inv.started_at ? ` · started ${time(inv.started_at)}` : ""}${
          inv.finished_at ? ` · finished ${time(inv.finished_at)}` : ""
        } · fingerprint ${inv.fingerprint}
      </p>
      ${inv.error && html`<p class="error" role="alert"><strong>Failed</strong>: ${inv.error}</p>`}
      <${Pairs} title="Labels" pairs=${labels} />
      <${Pairs} title="Annotations" pairs=${inv.alert.annotations ?? {}} />
      <h3>Analysis</h3>
      ${
        inv.analysis
          ? html`<div class="answer" dangerouslySetInnerHTML=${{ __html: renderMarkdown(inv.analysis) }}></div>`
          : html`<p class="notice">${active(inv.status) ? "Not finished yet." : "No analysis."}</p>`
      }
      ${inv.tool_calls.length > 0 && html`<h3>Tool calls</h3>`}
      ${inv.tool_calls.map((call, i) => html`<${ToolCard} key=${i} tool=${toolEntry(call, i)} now=${0} onDecide=${() => {}} />`)}
      ${
        inv.deliveries.length > 0 &&
        html`<h3>Deliveries</h3>
        <ul class="deliveries">
          ${inv.deliveries.map(
            (d) => html`<li key=${d.sink}>
              <strong>${d.sink}</strong>: ${d.ok ? "delivered" : "not delivered"} after ${d.attempts}
              ${d.attempts === 1 ? " attempt" : " attempts"}${d.last_status !== null ? ` (HTTP ${d.last_status})` : ""}${
                d.delivered_at ? ` at ${time(d.delivered_at)}` : ""
              }${d.last_error ? ` — ${d.last_error}` : ""}
            </li>`,
          )}
        </ul>`
      }
    </section>
  `
}

function Pairs({ title, pairs }: { title: string; pairs: Record<string, string> }) {
  const entries = Object.entries(pairs)
  if (entries.length === 0) return null
  return html`
    <h3>${title}</h3>
    <dl class="pairs" aria-label=${title}>
      ${entries.map(([k, v]) => html`<dt key=${`k${k}`}>${k}</dt><dd key=${`v${k}`}>${v}</dd>`)}
    </dl>
  `
}

/** A stored call as the chat's tool card shows it; its output stays text. */
function toolEntry(call: WireToolCall, i: number): ToolEntry {
  const r = call.result ?? {}
  const output = typeof r.data === "string" ? r.data : r.data == null ? "" : JSON.stringify(r.data, null, 2)
  return {
    kind: "tool",
    id: call.tool_call_id ?? String(i),
    name: call.tool_name ?? "tool",
    description: call.description,
    args: r.params,
    status: r.status === "success" ? "success" : "error",
    output,
    error: r.error ?? undefined,
    startedAt: 0,
    untimed: true,
    truncated: output.trimEnd().endsWith("[TRUNCATED]"),
  }
}

function time(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : ""
}
