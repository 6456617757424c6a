/**
 * The queue as an operator sees it: at most `max_concurrent` run at once, one log line per state
 * change (a crash's requeue included), and the by-status and queue-depth series on `/metrics`.
 */
import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MAX_RUN_ATTEMPTS } from "../../src/alerts/queue.ts"
import { type LogLevel, setLogLevel, setLogSink } from "../../src/log.ts"
import type { AlertInput } from "../../src/store/investigation.ts"
import { SqlInvestigationStore } from "../../src/store/sql-store.ts"
import { waitFor } from "../support/wait.ts"
import { type AlertHarness, alertmanagerBody, startAlertHarness, waitForStatus } from "./support.ts"

let h: AlertHarness | undefined
const dirs: string[] = []
let restoreLog: { sink: (line: string) => void; level: LogLevel } | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
  if (restoreLog) {
    setLogSink(restoreLog.sink)
    setLogLevel(restoreLog.level)
  }
  restoreLog = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
}, 60_000)

type Posted = { investigations: Array<{ id: string }> }

/** The most intervals [start, end) that overlap at one instant (an end before a start at a tie). */
function maxOverlap(intervals: Array<[number, number]>): number {
  const events = intervals.flatMap(
    ([s, e]): Array<[number, number]> => [
      [s, 1],
      [e, -1],
    ],
  )
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let now = 0
  let most = 0
  for (const [, d] of events) {
    now += d
    most = Math.max(most, now)
  }
  return most
}

/**
 * A SQLite store as servers that died left it: one investigation claimed `runs` times, each run
 * cut short, the last one still `running`.
 */
async function crashedStore(fingerprint: string, runs: number): Promise<{ path: string; id: string }> {
  const dir = mkdtempSync(join(tmpdir(), "dupin-ops-"))
  dirs.push(dir)
  const path = join(dir, "dupin.db")
  const store = SqlInvestigationStore.sqlite(path)
  await store.migrate()
  const alert: AlertInput = {
    fingerprint,
    status: "firing",
    labels: { alertname: "Left" },
    annotations: {},
    startsAt: null,
    endsAt: null,
    generatorURL: null,
  }
  const created = await store.enqueue(alert, { dedupeWindow: 60, maxQueued: 10 })
  if (created.kind !== "created") throw new Error("not created")
  for (let i = 0; i < runs; i++) {
    if (i > 0) await store.requeueAllRunning()
    expect((await store.claim(`dead-server-${i}`, 30_000))?.id).toBe(created.investigation.id)
  }
  await store.close()
  return { path, id: created.investigation.id }
}

function metric(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

test("max_concurrent: 6 alerts with max_concurrent 2 run two at a time; queue depth and by-status on /metrics", async () => {
  h = await startAlertHarness({ alerts: { max_concurrent: 2 } })
  // Every run is one model call of 700 ms, so runs that may overlap do.
  const step = () => {
    h!.fake.script(step)
    return { content: "Looked.", delayMs: 700 }
  }
  h.fake.script(step)
  const posted = (await (
    await h.postAlerts(alertmanagerBody(Array.from({ length: 6 }, (_, i) => ({ fingerprint: `mc${i}` }))))
  ).json()) as Posted
  expect(posted.investigations).toHaveLength(6)
  // While they wait, the queue depth is on /metrics.
  const depth = await waitFor(
    async () => {
      const value = metric(await (await h!.get("/metrics")).text(), "dupin_investigation_queue_depth")
      return value !== undefined && value > 0 ? value : undefined
    },
    { timeoutMs: 5_000, intervalMs: 25, what: "a queue depth above 0 on /metrics" },
  )
  expect(depth).toBeLessThanOrEqual(4)
  const records = []
  for (const { id } of posted.investigations) records.push(await waitForStatus(h, id, ["done", "failed"]))
  expect(records.every((r) => r.status === "done")).toBe(true)
  const intervals = records.map((r): [number, number] => [
    Date.parse(String(r.started_at)),
    Date.parse(String(r.finished_at)),
  ])
  expect(maxOverlap(intervals)).toBe(2)
  const metrics = await waitFor(
    async () => {
      const text = await (await h!.get("/metrics")).text()
      return metric(text, 'dupin_investigations{status="done"}') === 6 ? text : undefined
    },
    { timeoutMs: 5_000, intervalMs: 50, what: "6 done on /metrics" },
  )
  expect(metric(metrics, "dupin_investigation_queue_depth")).toBe(0)
  expect(metric(metrics, 'dupin_investigations{status="queued"}')).toBe(0)
  expect(metric(metrics, 'dupin_investigations{status="running"}')).toBe(0)
  expect(metric(metrics, "dupin_investigation_queue_wait_seconds_count")).toBe(6)
}, 60_000)

test("a log line per state change: queued, running, done, failed, and requeued after a crash", async () => {
  const lines: Array<Record<string, unknown>> = []
  const sink = setLogSink((line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>)
    } catch {
      // a readable line from another test's setting: not ours
    }
  })
  restoreLog = { sink, level: setLogLevel("INFO") }
  // A crash's leftovers: one investigation left `running` by a server that died.
  const { path, id: leftId } = await crashedStore("left-running", 1)

  h = await startAlertHarness({ store: { path }, alerts: { max_concurrent: 1 } })
  // The left one runs first (oldest), then "ok" is answered, then "bad" gets a 400 from the model.
  h.fake.script({ content: "Recovered." }, { content: "Fine." }, { status: 400 })
  await waitForStatus(h, leftId, ["done"])
  const ok = ((await (await h.postAlerts(alertmanagerBody([{ fingerprint: "ok" }]))).json()) as Posted)
    .investigations[0]!.id
  await waitForStatus(h, ok, ["done"])
  const bad = ((await (await h.postAlerts(alertmanagerBody([{ fingerprint: "bad" }]))).json()) as Posted)
    .investigations[0]!.id
  await waitForStatus(h, bad, ["failed"])

  const about = (id: string) => lines.filter((l) => l.id === id).map((l) => l.msg)
  expect(lines.find((l) => l.id === leftId && l.msg === "investigation requeued")).toMatchObject({
    level: "INFO",
    reason: "crash",
  })
  expect(about(leftId)).toEqual(["investigation requeued", "investigation running", "investigation done"])
  expect(about(ok)).toEqual(["investigation queued", "investigation running", "investigation done"])
  expect(about(bad)).toEqual(["investigation queued", "investigation running", "investigation failed"])
  expect(lines.find((l) => l.id === bad && l.msg === "investigation failed")?.error).toBeTruthy()
}, 60_000)

test("queue latency with room to run: intake wakes the worker, no poll wait (prints p50/p95)", async () => {
  // A poll of a minute: only intake's wake-up can start a run quickly.
  h = await startAlertHarness({ alerts: { max_concurrent: 4 } }, { pollMs: 60_000 })
  const step = () => {
    h!.fake.script(step)
    return { content: "Looked." }
  }
  h.fake.script(step)
  const waits: number[] = []
  for (let i = 0; i < 20; i++) {
    const posted = (await (
      await h.postAlerts(alertmanagerBody([{ fingerprint: `lat${i}` }]))
    ).json()) as Posted
    const record = await waitForStatus(h, posted.investigations[0]!.id, ["done"])
    waits.push(Date.parse(String(record.started_at)) - Date.parse(String(record.created_at)))
  }
  waits.sort((a, b) => a - b)
  const p50 = waits[Math.floor(waits.length * 0.5)]!
  const p95 = waits[Math.floor(waits.length * 0.95)]!
  console.log(
    `alert queue latency (accepted → running, idle queue): ${JSON.stringify({ p50, p95, max: waits.at(-1) })} ms`,
  )
  expect(p95).toBeLessThan(1_000)
}, 120_000)

test("an investigation interrupted on every run is given up after MAX_RUN_ATTEMPTS, recorded as failed", async () => {
  // Five runs, each cut short (a server that died each time it ran this one).
  const { path, id } = await crashedStore("crash-loop", MAX_RUN_ATTEMPTS)
  h = await startAlertHarness({ store: { path } })
  const record = await waitForStatus(h, id, ["done", "failed"])
  expect(record.status).toBe("failed")
  expect(String(record.error)).toContain(`interrupted ${MAX_RUN_ATTEMPTS} times`)
  expect(record.attempts).toBe(MAX_RUN_ATTEMPTS + 1)
  // The model was not asked again.
  expect(h.fake.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(0)
}, 60_000)
