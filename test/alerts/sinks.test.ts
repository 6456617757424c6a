/**
 * Delivery to real local HTTP receivers: a webhook that records the record, a stand-in for Slack's
 * incoming webhook that checks the Block Kit shape, one that answers 500 then recovers, and one
 * that never answers. A failing or hanging sink never holds up the queue.
 */
import { afterEach, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { waitFor } from "../support/wait.ts"
import { type AlertHarness, alertmanagerBody, startAlertHarness, waitForStatus } from "./support.ts"

type Received = { path: string; headers: Headers; body: Record<string, unknown>; at: number; wall: number }

function receiver(answer: (n: number, path: string) => number | "hang") {
  const received: Received[] = []
  // Counted per investigation: each one's attempts see the same answers.
  const seen = new Map<unknown, number>()
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname
      const body = (await req.json()) as Record<string, unknown>
      received.push({ path, headers: req.headers, body, at: performance.now(), wall: Date.now() })
      const n = (seen.get(body.id) ?? 0) + 1
      seen.set(body.id, n)
      const status = answer(n, path)
      if (status === "hang") await new Promise(() => {})
      return new Response("ok", { status: status as number })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) }
}

/** Slack's documented limits for the blocks dupin sends. */
function checkBlockKit(body: Record<string, unknown>): void {
  expect(typeof body.text).toBe("string")
  const blocks = body.blocks as Array<Record<string, unknown>>
  expect(Array.isArray(blocks)).toBe(true)
  expect(blocks.length).toBeLessThanOrEqual(50)
  for (const block of blocks) {
    expect(["header", "section", "divider", "context", "actions"]).toContain(String(block.type))
    const text = block.text as { type: string; text: string } | undefined
    if (block.type === "header") {
      expect(text?.type).toBe("plain_text")
      expect(text!.text.length).toBeLessThanOrEqual(150)
    }
    if (block.type === "section") {
      if (text) {
        expect(text.type).toBe("mrkdwn")
        expect(text.text.length).toBeLessThanOrEqual(3000)
      }
      for (const field of (block.fields as Array<{ type: string; text: string }> | undefined) ?? []) {
        expect(field.type).toBe("mrkdwn")
        expect(field.text.length).toBeLessThanOrEqual(2000)
      }
    }
  }
}

const stops: Array<() => unknown> = []
let h: AlertHarness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
  for (const stop of stops.splice(0)) await stop()
})

test("webhook and Slack sinks get the findings; env headers expand; a link back with public_url", async () => {
  const hook = receiver(() => 200)
  const slack = receiver(() => 200)
  stops.push(hook.stop, slack.stop)
  h = await startAlertHarness(
    {
      server: { public_url: "https://dupin.example.internal/" },
      alerts: {
        sinks: [
          { type: "webhook", url: `${hook.url}/hook`, headers: { "X-Token": "{{ env.HOOK_TOKEN }}" } },
          { type: "slack", webhook_url: "{{ env.SLACK_URL }}" },
        ],
      },
    },
    { delivery: { attempts: 3, backoffMs: 50, timeoutMs: 2000 } },
    { HOOK_TOKEN: "tok-123", SLACK_URL: `${slack.url}/services/T/B/X` },
  )
  h.fake.script({ content: "Disk *full* on host-0 <@here>: rotate logs." })
  const { investigations } = (await (await h.postAlerts(alertmanagerBody([{}]))).json()) as {
    investigations: Array<{ id: string }>
  }
  const id = investigations[0]!.id
  const record = await waitFor(
    async () => {
      const r = (await (await h!.get(`/api/investigations/${id}`)).json()) as {
        deliveries: Array<{ ok: boolean }>
      }
      return r.deliveries.length === 2 && r.deliveries.every((d) => d.ok) ? r : undefined
    },
    { timeoutMs: 20_000, what: "both deliveries" },
  )
  expect(record.deliveries).toEqual([
    expect.objectContaining({ sink: "webhook", ok: true, attempts: 1, last_status: 200, last_error: null }),
    expect.objectContaining({ sink: "slack", ok: true, attempts: 1, last_status: 200 }),
  ])
  const hooked = hook.received[0]!
  expect(hooked.headers.get("x-token")).toBe("tok-123")
  expect(hooked.body.id).toBe(id)
  expect(hooked.body.analysis).toBe("Disk *full* on host-0 <@here>: rotate logs.")
  expect(hooked.body.url).toBe(`https://dupin.example.internal/api/investigations/${id}`)
  const posted = slack.received[0]!
  expect(posted.path).toBe("/services/T/B/X")
  checkBlockKit(posted.body)
  const text = JSON.stringify(posted.body.blocks)
  expect(text).toContain("DiskFull")
  expect(text).toContain("critical")
  expect(text).toContain("Disk almost full")
  // Model text cannot ping a channel or forge a link: Slack's control characters are escaped.
  expect(text).toContain("&lt;@here&gt;")
  expect(text).toContain(`<https://dupin.example.internal/api/investigations/${id}|`)
}, 60_000)

test("a sink answering 500 is retried with backoff, every attempt recorded; a hanging one times out; the queue goes on", async () => {
  const flaky = receiver((n) => (n < 3 ? 500 : 200))
  const hanging = receiver(() => "hang")
  stops.push(flaky.stop, hanging.stop)
  h = await startAlertHarness(
    {
      alerts: {
        max_concurrent: 1,
        sinks: [
          { type: "webhook", url: flaky.url },
          { type: "webhook", url: hanging.url },
        ],
      },
    },
    { delivery: { attempts: 3, backoffMs: 100, timeoutMs: 500 } },
  )
  h.fake.script({ content: "first" }, { content: "second" })
  const first = (await (await h.postAlerts(alertmanagerBody([{ fingerprint: "a" }]))).json()) as {
    investigations: Array<{ id: string }>
  }
  const second = (await (await h.postAlerts(alertmanagerBody([{ fingerprint: "b" }]))).json()) as {
    investigations: Array<{ id: string }>
  }
  // The second investigation finishes while the first one's deliveries are still failing.
  const secondDone = await waitForStatus(h, second.investigations[0]!.id, ["done"])
  const record = await waitFor(
    async () => {
      const r = (await (await h!.get(`/api/investigations/${first.investigations[0]!.id}`)).json()) as {
        deliveries: Array<{
          sink: string
          ok: boolean
          attempts: number
          last_status: number | null
          last_error: string | null
        }>
      }
      return r.deliveries[0]?.ok && r.deliveries[1]?.attempts === 3 ? r : undefined
    },
    { timeoutMs: 20_000, what: "the flaky sink delivered and the hanging one given up" },
  )
  expect(record.deliveries[0]).toMatchObject({ sink: "webhook#1", ok: true, attempts: 3, last_status: 200 })
  // Backoff: 100 ms before the second attempt, 200 ms before the third.
  const times = flaky.received.filter((r) => r.body.id === first.investigations[0]!.id).map((r) => r.at)
  expect(times).toHaveLength(3)
  expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(90)
  expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(190)
  expect(record.deliveries[1]).toMatchObject({ sink: "webhook#2", ok: false, attempts: 3, last_status: null })
  expect(record.deliveries[1]?.last_error).toBeTruthy()
  // With max_concurrent 1, the second run took the only slot before the hanging sink's last
  // attempt had even begun: deliveries hold no slot.
  const hung = hanging.received.filter((r) => r.body.id === first.investigations[0]!.id)
  expect(hung).toHaveLength(3)
  expect(Date.parse(String(secondDone.started_at))).toBeLessThan(hung[2]!.wall)
  const metrics = await (await h.get("/metrics")).text()
  expect(metrics).toMatch(/dupin_sink_deliveries_total\{sink="webhook",outcome="failed"\} \d/)
}, 40_000)

test("a delivery cut short by a shutdown resumes on the next start, counting the earlier attempts", async () => {
  const store = { path: join(mkdtempSync(join(tmpdir(), "dupin-resume-")), "dupin.db") }
  const sinks = [{ type: "webhook" as const, url: "{{ env.HOOK_URL }}" }]
  // First life: the receiver is down, and the retry waits longer than the server lives.
  const first = await startAlertHarness(
    { store, alerts: { sinks } },
    { delivery: { attempts: 3, backoffMs: 60_000, timeoutMs: 1000 } },
    { HOOK_URL: "http://127.0.0.1:9/down" },
  )
  first.fake.script({ content: "Findings that must not be lost." })
  const { investigations } = (await (await first.postAlerts(alertmanagerBody([{}]))).json()) as {
    investigations: Array<{ id: string }>
  }
  const id = investigations[0]!.id
  await waitFor(
    async () => {
      const r = (await (await first.get(`/api/investigations/${id}`)).json()) as {
        deliveries: Array<{ attempts: number }>
      }
      return r.deliveries[0]?.attempts === 1
    },
    { timeoutMs: 20_000, what: "the first failed attempt recorded" },
  )
  await first.stop()
  // Second life: the receiver is up.
  const hook = receiver(() => 200)
  stops.push(hook.stop)
  h = await startAlertHarness(
    { store, alerts: { sinks } },
    { delivery: { attempts: 3, backoffMs: 50, timeoutMs: 1000 } },
    { HOOK_URL: `${hook.url}/up` },
  )
  const record = await waitFor(
    async () => {
      const r = (await (await h!.get(`/api/investigations/${id}`)).json()) as {
        deliveries: Array<{ ok: boolean; attempts: number }>
      }
      return r.deliveries[0]?.ok ? r : undefined
    },
    { timeoutMs: 20_000, what: "the delivery resumed and made" },
  )
  expect(record.deliveries[0]).toMatchObject({ sink: "webhook", ok: true, attempts: 2, last_status: 200 })
  expect(hook.received[0]?.body.analysis).toBe("Findings that must not be lost.")
}, 60_000)
