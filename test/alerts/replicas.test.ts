/**
 * Several replicas on one PostgreSQL store (a real server): alerts posted to both are each
 * investigated exactly once, and work held by a replica that died is taken over once its lease
 * expires.
 */
import { afterAll, expect, test } from "bun:test"
import { SqlInvestigationStore } from "../../src/store/sql-store.ts"
import { postgresForThisFile } from "../support/postgres.ts"
import { waitFor } from "../support/wait.ts"
import { type AlertHarness, alertmanagerBody, startAlertHarness } from "./support.ts"

const pg = postgresForThisFile()
const harnesses: AlertHarness[] = []
afterAll(async () => {
  for (const h of harnesses) await h.stop()
})

/** A replica: its own server, store connection pool and worker; the investigation counts per fingerprint. */
async function replica(
  url: string,
  name: string,
  runs: Map<string, string[]>,
  leaseMs = 30_000,
): Promise<AlertHarness> {
  const h = await startAlertHarness(
    { store: { url }, alerts: { max_concurrent: 3 } },
    { leaseMs, owner: name, pollMs: 50 },
  )
  const step = (request: { body: Record<string, unknown> | null }) => {
    h.fake.script(step)
    const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string }>
    const fp = /Fingerprint: (\S+)/.exec(messages.find((m) => m.role === "user")?.content ?? "")?.[1]
    if (fp) runs.set(fp, [...(runs.get(fp) ?? []), name])
    return { content: `investigated by ${name}`, delayMs: 30 }
  }
  for (let i = 0; i < 8; i++) h.fake.script(step)
  harnesses.push(h)
  return h
}

test("two replicas sharing a queue: 60 alerts posted to both, each investigated exactly once", async () => {
  const url = await pg.database("replicas")
  const runs = new Map<string, string[]>()
  const a = await replica(url, "replica-a", runs)
  const b = await replica(url, "replica-b", runs)
  // Each alert is posted to both replicas at once, as two Alertmanagers in a cluster might.
  const bodies = Array.from({ length: 6 }, (_, g) =>
    alertmanagerBody(Array.from({ length: 10 }, (_, k) => ({ fingerprint: `r${g * 10 + k}` }))),
  )
  const answers = await Promise.all(bodies.flatMap((body) => [a.postAlerts(body), b.postAlerts(body)]))
  expect(answers.every((r) => r.status === 202)).toBe(true)
  await waitFor(
    async () => {
      const { investigations } = (await (
        await a.get("/api/investigations?status=done&limit=500")
      ).json()) as {
        investigations: unknown[]
      }
      return investigations.length === 60
    },
    { timeoutMs: 60_000, intervalMs: 100, what: "60 investigations done" },
  )
  expect(runs.size).toBe(60)
  for (const [fp, by] of runs) expect(by, fp).toHaveLength(1)
  const ran = [...runs.values()].flat()
  // Both replicas took part (the queue is shared, not just the store).
  expect(ran.filter((n) => n === "replica-a").length).toBeGreaterThan(0)
  expect(ran.filter((n) => n === "replica-b").length).toBeGreaterThan(0)
  // Any replica answers for any investigation.
  const { investigations } = (await (await b.get("/api/investigations?limit=1")).json()) as {
    investigations: Array<{ id: string }>
  }
  expect((await a.get(`/api/investigations/${investigations[0]!.id}`)).status).toBe(200)
}, 90_000)

test("a replica that dies mid-investigation: another takes it over when the lease expires", async () => {
  const url = await pg.database("takeover")
  // The dead replica: it claimed the investigation with a 1.5 s lease, then stopped renewing.
  const dead = SqlInvestigationStore.postgres(url, 2)
  await dead.migrate()
  const runs = new Map<string, string[]>()
  const created = await dead.enqueue(
    {
      fingerprint: "orphan",
      status: "firing",
      labels: { alertname: "Orphan" },
      annotations: {},
      startsAt: null,
      endsAt: null,
      generatorURL: null,
    },
    { dedupeWindow: 60, maxQueued: 10 },
  )
  expect(created.kind).toBe("created")
  const claimed = await dead.claim("dead-replica", 1500)
  expect(claimed?.fingerprint).toBe("orphan")
  await dead.close()
  const alive = await replica(url, "replica-c", runs, 1500)
  const record = await waitFor(
    async () => {
      const r = (await (await alive.get(`/api/investigations/${claimed!.id}`)).json()) as {
        status: string
        attempts: number
        analysis: string
      }
      return r.status === "done" ? r : undefined
    },
    { timeoutMs: 30_000, intervalMs: 100, what: "the orphaned investigation done by another replica" },
  )
  expect(record.attempts).toBe(2)
  expect(record.analysis).toBe("investigated by replica-c")
  expect(runs.get("orphan")).toEqual(["replica-c"])
}, 60_000)
