/**
 * A burst of 1,000 alerts at a real `dupin serve`: every alert is accounted for (created,
 * deduplicated, or refused with 503), the server's memory stays bounded, and chat is still
 * answered while the queue drains. Prints the figures (docs/alerts.md quotes them).
 */
import { afterEach, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { waitFor } from "../support/wait.ts"
import { getJson, type ServedAlerts, serveAlerts } from "./serve-support.ts"
import { alertmanagerBody } from "./support.ts"

let served: ServedAlerts | undefined
afterEach(async () => {
  await served?.stop()
  served = undefined
})

const ALERTS = 1000
const PER_BODY = 5
const UNIQUE = 900
const MAX_QUEUED = 200

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)
  return Math.round(kb / 1024)
}

type Item = { id: string | null; status: string; deduplicated?: boolean }
type Record_ = { created_at: string; started_at: string | null; finished_at: string | null; status: string }

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

test("1,000 alerts: each created, deduplicated or refused; memory bounded; chat answered meanwhile", async () => {
  served = await serveAlerts((request) => {
    const messages = (request.body?.messages ?? []) as Array<{ role?: string; content?: unknown }>
    const investigation = messages.some(
      (m) => m.role === "user" && String(m.content).includes("Fingerprint:"),
    )
    return investigation ? { content: "Investigated.", delayMs: 100 } : { content: "Chat answer." }
  }, `alerts: { enabled: true, max_concurrent: 4, max_queued: ${MAX_QUEUED}, dedupe_window: 3600 }`)
  const { url, pid } = served.server
  const rssBefore = rssMb(pid)
  let rssPeak = rssBefore
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMb(pid))
  }, 100)

  const bodies = Array.from({ length: ALERTS / PER_BODY }, (_, b) =>
    alertmanagerBody(
      Array.from({ length: PER_BODY }, (_, k) => {
        const i = b * PER_BODY + k
        return { fingerprint: `burst-${i % UNIQUE}`, labels: { alertname: "Burst", n: String(i % UNIQUE) } }
      }),
    ),
  )
  const items: Item[] = []
  const statuses = new Map<number, number>()
  const started = performance.now()
  let next = 0
  // 20 senders at once, as several Alertmanagers (or one with many groups) would.
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]
        const res = await fetch(`${url}/api/alerts/alertmanager`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        })
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        items.push(...((await res.json()) as { investigations: Item[] }).investigations)
      }
    }),
  )
  const intakeMs = Math.round(performance.now() - started)

  const created = items.filter((i) => i.id && !i.deduplicated).length
  const deduplicated = items.filter((i) => i.deduplicated).length
  const refused = items.filter((i) => i.status === "refused").length
  expect(created + deduplicated + refused).toBe(ALERTS)
  expect(items).toHaveLength(ALERTS)
  expect(refused).toBeGreaterThan(0)
  expect([...statuses.keys()].every((s) => s === 202 || s === 503)).toBe(true)

  // Chat while the queue drains.
  const chatStarted = performance.now()
  const chat = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ask: "is everything fine?" }),
  })
  const chatMs = Math.round(performance.now() - chatStarted)
  expect(chat.status).toBe(200)
  expect(((await chat.json()) as { analysis: string }).analysis).toBe("Chat answer.")
  const info = await getJson<{ alerts: { counts: Record<string, number> } }>(`${url}/api/info`)
  const waitingDuringChat = info.alerts.counts.queued ?? 0
  // Answered while the queue still held work, not after it drained.
  expect(waitingDuringChat).toBeGreaterThan(0)

  await waitFor(
    async () => {
      const { alerts } = await getJson<{ alerts: { counts: Record<string, number> } }>(`${url}/api/info`)
      return alerts.counts.queued === 0 && alerts.counts.running === 0
    },
    { timeoutMs: 240_000, intervalMs: 250, what: "the queue drained" },
  )
  const drainMs = Math.round(performance.now() - started)
  clearInterval(sampler)
  const { investigations } = await getJson<{ investigations: Array<{ id: string }> }>(
    `${url}/api/investigations?limit=500`,
  )
  expect(investigations.length).toBe(created)
  const records = await Promise.all(
    investigations.map((i) => getJson<Record_>(`${url}/api/investigations/${i.id}`)),
  )
  expect(records.every((r) => r.status === "done")).toBe(true)
  const waits = records
    .map((r) => Date.parse(r.started_at ?? "") - Date.parse(r.created_at))
    .sort((a, b) => a - b)
  const rssAfter = rssMb(pid)
  const figures = {
    alerts: ALERTS,
    bodies: bodies.length,
    created,
    deduplicated,
    refused_503: refused,
    http_statuses: Object.fromEntries(statuses),
    intake_ms: intakeMs,
    drain_ms: drainMs,
    queue_wait_ms: { p50: percentile(waits, 0.5), p95: percentile(waits, 0.95), max: waits.at(-1) },
    chat_during_drain_ms: chatMs,
    queued_when_chat_answered: waitingDuringChat,
    rss_mb: { before: rssBefore, peak: rssPeak, after: rssAfter },
  }
  console.log(`alert burst figures: ${JSON.stringify(figures)}`)
  // Bounded: the queue lives in the store, not in memory.
  expect(rssPeak - rssBefore).toBeLessThan(300)
  const metrics = await (await fetch(`${url}/metrics`)).text()
  expect(metrics).toContain(`dupin_alerts_received_total{outcome="refused"} ${refused}`)
  expect(metrics).toContain(`dupin_alerts_received_total{outcome="deduplicated"} ${deduplicated}`)
  expect(metrics).toContain(`dupin_alerts_received_total{outcome="created"} ${created}`)
  // Each refusal is logged too, with the alert it refused.
  const refusals = served.server.log.filter((l) =>
    l.includes('"msg":"alert refused: the investigation queue is full"'),
  )
  expect(refusals).toHaveLength(refused)
  expect(refusals[0]).toContain('"fingerprint":"burst-')
}, 300_000)
