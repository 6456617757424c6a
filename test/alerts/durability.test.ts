/**
 * Nothing accepted is lost: `kill -9` of a real `dupin serve` while an investigation runs, then a
 * restart on the same store: the interrupted one runs again and completes, and the queued ones
 * run too. SIGTERM: a run that outlasts the drain grace goes back to the queue.
 */
import { afterEach, expect, test } from "bun:test"
import { waitFor } from "../support/wait.ts"
import { isFirstStep, type ServedAlerts, serveAlerts } from "./serve-support.ts"
import { alertmanagerBody } from "./support.ts"

let served: ServedAlerts | undefined
afterEach(async () => {
  await served?.stop()
  served = undefined
})

type Listed = { investigations: Array<{ id: string; status: string; fingerprint: string }> }

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/api/alerts/alertmanager`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  })
}

async function listed(url: string): Promise<Listed["investigations"]> {
  return ((await (await fetch(`${url}/api/investigations`)).json()) as Listed).investigations
}

test("kill -9 mid-investigation: after a restart the interrupted one completes and the queued ones run", async () => {
  let phase = 1
  // First life: every run naps 30 s (so one is mid-run when killed). Second life: answers at once.
  served = await serveAlerts(
    (request) =>
      phase === 1 && isFirstStep(request)
        ? { toolCalls: [{ name: "nap", arguments: { seconds: "30" } }] }
        : { content: `Recovered after restart (phase ${phase}).` },
    "alerts: { enabled: true, max_concurrent: 1 }",
  )
  const url = served.server.url
  const res = await post(
    url,
    alertmanagerBody([{ fingerprint: "k1" }, { fingerprint: "k2" }, { fingerprint: "k3" }]),
  )
  expect(res.status).toBe(202)
  await waitFor(async () => (await listed(url)).some((i) => i.status === "running"), {
    timeoutMs: 20_000,
    what: "one investigation running",
  })
  const before = await listed(url)
  expect(before.filter((i) => i.status === "queued")).toHaveLength(2)
  await served.server.stop("SIGKILL")
  phase = 2
  const restarted = await served.start()
  const after = await waitFor(
    async () => {
      const all = await listed(restarted.url)
      return all.length === 3 && all.every((i) => i.status === "done") ? all : undefined
    },
    { timeoutMs: 30_000, what: "all three done after the restart" },
  )
  expect(after.map((i) => i.fingerprint).sort()).toEqual(["k1", "k2", "k3"])
  const interrupted = before.find((i) => i.status === "running")!
  const record = (await (await fetch(`${restarted.url}/api/investigations/${interrupted.id}`)).json()) as {
    attempts: number
    analysis: string
  }
  expect(record.attempts).toBe(2)
  expect(record.analysis).toBe("Recovered after restart (phase 2).")
  // A log line for the state change, naming the investigation.
  const requeued = served.server.log.filter(
    (l) => l.includes('"msg":"investigation requeued"') && l.includes('"reason":"crash"'),
  )
  expect(requeued.some((l) => l.includes(`"id":"${interrupted.id}"`))).toBe(true)
}, 90_000)

test("SIGTERM: a run that outlasts the drain grace is marked to run again, and does on the next start", async () => {
  let phase = 1
  served = await serveAlerts(
    (request) =>
      phase === 1 && isFirstStep(request)
        ? { toolCalls: [{ name: "nap", arguments: { seconds: "60" } }] }
        : { content: "Done on the next start." },
    "alerts: { enabled: true, max_concurrent: 1 }",
  )
  const url = served.server.url
  expect((await post(url, alertmanagerBody([{ fingerprint: "t1" }]))).status).toBe(202)
  await waitFor(async () => (await listed(url)).some((i) => i.status === "running"), {
    timeoutMs: 20_000,
    what: "the investigation running",
  })
  // The drain grace is 30 s by default; the run naps 60 s, so it is given back.
  const exit = await served.server.stop("SIGTERM")
  expect(exit).toBe(0)
  expect(served.server.log.join("\n")).toContain('"msg":"investigation requeued"')
  phase = 2
  const restarted = await served.start()
  const done = await waitFor(
    async () => {
      const all = await listed(restarted.url)
      return all[0]?.status === "done" ? all : undefined
    },
    { timeoutMs: 30_000, what: "the requeued investigation done" },
  )
  expect(done).toHaveLength(1)
}, 120_000)
