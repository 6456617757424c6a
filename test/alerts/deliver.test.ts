/**
 * `deliver` on its own: how many attempts a failing sink gets. A sink that can never succeed in
 * this process (an unset `{{ env.X }}`) gets one; a sink answering an error is retried.
 */
import { afterEach, expect, test } from "bun:test"
import { deliver } from "../../src/alerts/sinks/deliver.ts"
import { webhookSink } from "../../src/alerts/sinks/webhook.ts"
import type { Delivery, Investigation } from "../../src/store/investigation.ts"

let server: ReturnType<typeof Bun.serve> | undefined
afterEach(() => server?.stop(true))

const INVESTIGATION: Investigation = {
  id: "inv-1",
  status: "done",
  fingerprint: "f1",
  alert: {
    fingerprint: "f1",
    status: "firing",
    labels: { alertname: "DiskFull" },
    annotations: {},
    startsAt: null,
    endsAt: null,
    generatorURL: null,
  },
  createdAt: 0,
  startedAt: 0,
  finishedAt: 0,
  attempts: 1,
  result: null,
  error: null,
  deliveries: [],
}

async function attempts(url: string, env: Record<string, string>, backoffMs: number): Promise<Delivery> {
  const recorded: Delivery[][] = []
  await deliver(
    INVESTIGATION,
    [webhookSink("team", { url }, env, undefined)],
    { attempts: 3, backoffMs, timeoutMs: 2000 },
    async (deliveries) => void recorded.push(deliveries),
    () => {},
    new AbortController().signal,
  )
  const last = recorded.at(-1)?.[0]
  if (!last) throw new Error("no delivery was recorded")
  return last
}

test("a sink whose {{ env.X }} is unset fails once, naming X, with no backoff waits", async () => {
  const started = performance.now()
  // The backoff would hold this test for a minute if a second attempt were made.
  const delivery = await attempts("{{ env.DUPIN_TEST_SINK_URL }}", {}, 60_000)
  expect(performance.now() - started).toBeLessThan(2000)
  expect(delivery).toMatchObject({ sink: "team", ok: false, attempts: 1, last_status: null })
  expect(delivery.last_error).toContain("DUPIN_TEST_SINK_URL is not set")
})

test("a sink answering 500 is retried up to the policy's attempts", async () => {
  let hits = 0
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      hits++
      return new Response("no", { status: 500 })
    },
  })
  const delivery = await attempts(`http://127.0.0.1:${server.port}/hook`, {}, 10)
  expect(delivery).toMatchObject({ ok: false, attempts: 3, last_status: 500, last_error: "HTTP 500" })
  expect(hits).toBe(3)
})
