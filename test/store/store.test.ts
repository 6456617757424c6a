/**
 * The same store tests against both engines: SQLite in a temp file, PostgreSQL on a real server
 * started for this file (initdb + pg_ctl on a private port).
 */

import { Database } from "bun:sqlite"
import { describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AlertInput } from "../../src/store/investigation.ts"
import { MIGRATIONS } from "../../src/store/migrations.ts"
import { SqlInvestigationStore } from "../../src/store/sql-store.ts"
import type { InvestigationStore } from "../../src/store/store.ts"
import { postgresForThisFile } from "../support/postgres.ts"

export function alert(fingerprint: string, labels: Record<string, string> = {}): AlertInput {
  return {
    fingerprint,
    status: "firing",
    labels: { alertname: "HighLatency", severity: "page", ...labels },
    annotations: { summary: "p99 above 2 s" },
    startsAt: "2026-11-26T10:00:00Z",
    endsAt: null,
    generatorURL: "http://prometheus/graph",
  }
}

const OPTS = { dedupeWindow: 3600, maxQueued: 100 }

const pg = postgresForThisFile()
let pgDb = 0

/** A fresh database per test, so tests never see each other's rows. */
async function freshPostgres(): Promise<SqlInvestigationStore> {
  return SqlInvestigationStore.postgres(await pg.database(`t${++pgDb}`))
}

const engines: Array<[string, () => Promise<InvestigationStore>]> = [
  [
    "sqlite",
    async () => SqlInvestigationStore.sqlite(join(mkdtempSync(join(tmpdir(), "dupin-store-")), "dupin.db")),
  ],
  ["postgres", freshPostgres],
]

test("sqlite: the file is in WAL mode and records the migrations it ran", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dupin-store-"))
  const s = SqlInvestigationStore.sqlite(join(dir, "dupin.db"))
  await s.migrate()
  await s.close()
  const db = new Database(join(dir, "dupin.db"), { readonly: true })
  expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" })
  const versions = db.query("SELECT version FROM schema_migrations ORDER BY version").all()
  expect(versions).toEqual(MIGRATIONS.map((m) => ({ version: m.version })))
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe.each(engines)("%s store", (_name, open) => {
  async function store(): Promise<InvestigationStore> {
    const s = await open()
    await s.migrate()
    return s
  }

  test("migrations run once: a second migrate on the same database is a no-op", async () => {
    const s = await store()
    await s.migrate()
    expect((await s.enqueue(alert("a"), OPTS)).kind).toBe("created")
    await s.close()
  }, 30_000)

  test("a fingerprint seen within the window is deduplicated to the first investigation", async () => {
    const s = await store()
    const first = await s.enqueue(alert("fp1"), { ...OPTS, now: 1_000_000 })
    const again = await s.enqueue(alert("fp1"), { ...OPTS, now: 1_000_000 + 3599_000 })
    expect(first.kind).toBe("created")
    expect(again.kind).toBe("deduplicated")
    if (first.kind === "created" && again.kind === "deduplicated")
      expect(again.investigation.id).toBe(first.investigation.id)
    const later = await s.enqueue(alert("fp1"), { ...OPTS, now: 1_000_000 + 3600_000 })
    expect(later.kind).toBe("created")
    await s.close()
  }, 30_000)

  test("beyond max_queued waiting, intake is refused; a duplicate is still matched", async () => {
    const s = await store()
    const o = { dedupeWindow: 60, maxQueued: 2 }
    expect((await s.enqueue(alert("q1"), o)).kind).toBe("created")
    expect((await s.enqueue(alert("q2"), o)).kind).toBe("created")
    expect((await s.enqueue(alert("q3"), o)).kind).toBe("full")
    expect((await s.enqueue(alert("q1"), o)).kind).toBe("deduplicated")
    await s.close()
  }, 30_000)

  test("queued → running → done, oldest first, with the record kept", async () => {
    const s = await store()
    await s.enqueue(alert("o1"), { ...OPTS, now: 1 })
    await s.enqueue(alert("o2"), { ...OPTS, now: 2 })
    const claimed = await s.claim("me", 30_000)
    expect(claimed?.fingerprint).toBe("o1")
    expect(claimed?.status).toBe("running")
    expect(claimed?.attempts).toBe(1)
    const result = { analysis: "disk full", tool_calls: [], conversation_history: [], metadata: {} }
    expect(await s.finish(claimed!.id, "me", { status: "done", result })).toBe(true)
    const stored = await s.get(claimed!.id)
    expect(stored?.status).toBe("done")
    expect(stored?.result?.analysis).toBe("disk full")
    expect(stored?.finishedAt).toBeGreaterThan(0)
    expect(await s.counts()).toEqual({ queued: 1, running: 0, done: 1, failed: 0 })
    const finished = await s.finishedBetween(0, Date.now() + 1, 10)
    expect(finished.map((i) => i.id)).toEqual([claimed!.id])
    expect(await s.finishedBetween(0, stored!.finishedAt!, 10)).toEqual([])
    const listed = await s.list({ limit: 10 })
    expect(listed.map((i) => i.fingerprint)).toEqual(["o2", "o1"])
    expect((await s.list({ status: "done", limit: 10 })).map((i) => i.fingerprint)).toEqual(["o1"])
    await s.close()
  }, 30_000)

  test("a lease that expires is taken over; the old owner can neither renew nor finish", async () => {
    const s = await store()
    await s.enqueue(alert("l1"), OPTS)
    const now = Date.now()
    const a = await s.claim("replica-a", 1000, now)
    expect(await s.claim("replica-b", 1000, now + 500)).toBeUndefined()
    const b = await s.claim("replica-b", 1000, now + 1500)
    expect(b?.id).toBe(a?.id)
    expect(b?.attempts).toBe(2)
    expect(await s.renew(a!.id, "replica-a", 1000)).toBe(false)
    expect(await s.finish(a!.id, "replica-a", { status: "failed", error: "x" })).toBe(false)
    expect(await s.renew(b!.id, "replica-b", 1000)).toBe(true)
    expect(await s.finish(b!.id, "replica-b", { status: "failed", error: "boom" })).toBe(true)
    expect((await s.get(a!.id))?.error).toBe("boom")
    await s.close()
  }, 30_000)

  test("release and requeueAllRunning put running work back in the queue", async () => {
    const s = await store()
    await s.enqueue(alert("r1"), OPTS)
    await s.enqueue(alert("r2"), OPTS)
    const one = await s.claim("me", 30_000)
    const two = await s.claim("me", 30_000)
    expect(await s.release(one!.id, "me")).toBe(true)
    expect((await s.counts()).queued).toBe(1)
    expect(await s.requeueAllRunning()).toEqual([two!.id])
    expect((await s.counts()).queued).toBe(2)
    await s.close()
  }, 30_000)

  test("deliveries are stored with the record", async () => {
    const s = await store()
    const created = await s.enqueue(alert("d1"), OPTS)
    if (created.kind !== "created") throw new Error("not created")
    const delivery = {
      sink: "webhook",
      ok: true,
      attempts: 2,
      last_status: 200,
      last_error: null,
      delivered_at: new Date().toISOString(),
    }
    await s.setDeliveries(created.investigation.id, [delivery])
    expect((await s.get(created.investigation.id))?.deliveries).toEqual([delivery])
    await s.close()
  }, 30_000)

  test("40 concurrent claims by 40 owners of 20 queued: each investigation claimed exactly once", async () => {
    const s = await store()
    for (let i = 0; i < 20; i++) await s.enqueue(alert(`cl${i}`), OPTS)
    const claimed = await Promise.all(Array.from({ length: 40 }, (_, i) => s.claim(`owner-${i}`, 30_000)))
    const ids = claimed.flatMap((c) => (c ? [c.id] : []))
    expect(ids).toHaveLength(20)
    expect(new Set(ids).size).toBe(20)
    expect(await s.counts()).toEqual({ queued: 0, running: 20, done: 0, failed: 0 })
    await s.close()
  }, 30_000)

  test("200 concurrent intakes of 20 fingerprints create exactly 20 investigations", async () => {
    const s = await store()
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        s.enqueue(alert(`c${i % 20}`), { dedupeWindow: 60, maxQueued: 1000 }),
      ),
    )
    expect(outcomes.filter((o) => o.kind === "created")).toHaveLength(20)
    expect(outcomes.filter((o) => o.kind === "deduplicated")).toHaveLength(180)
    await s.close()
  }, 30_000)
})
