import { SQL } from "bun"
import {
  type AlertInput,
  type Delivery,
  INVESTIGATION_STATUSES,
  type Investigation,
  type InvestigationResult,
  type InvestigationStatus,
} from "./investigation.ts"
import { migrate } from "./migrations.ts"
import type { EnqueueOptions, EnqueueOutcome, InvestigationStore, ListOptions } from "./store.ts"

type Row = {
  id: string
  fingerprint: string
  status: string
  alert: string
  created_at: number | string
  started_at: number | string | null
  finished_at: number | string | null
  attempts: number | string
  result?: string | null
  error: string | null
  deliveries: string
}

/** Columns of a list item: not `result`, which holds the history and every tool output. */
const SUMMARY =
  "id, fingerprint, status, alert, created_at, started_at, finished_at, attempts, error, deliveries"

/**
 * The store on Bun's SQL client. The two engines differ in one place: PostgreSQL's claim locks the
 * row it picks with `FOR UPDATE SKIP LOCKED`, so replicas claiming at once take different rows;
 * SQLite has a single writer, which gives the same guarantee. (PostgreSQL returns BIGINT as a
 * string, hence the `Number()`s.)
 */
export class SqlInvestigationStore implements InvestigationStore {
  readonly engine: "sqlite" | "postgres"
  readonly #sql: SQL

  constructor(sql: SQL, engine: "sqlite" | "postgres") {
    this.#sql = sql
    this.engine = engine
  }

  static sqlite(path: string): SqlInvestigationStore {
    return new SqlInvestigationStore(new SQL({ adapter: "sqlite", filename: path }), "sqlite")
  }

  static postgres(url: string, max = 10): SqlInvestigationStore {
    return new SqlInvestigationStore(new SQL({ url, max, idleTimeout: 30 }), "postgres")
  }

  async migrate(): Promise<void> {
    if (this.engine === "sqlite") {
      // WAL: readers (the API) never wait for the writer (the queue); a crash loses nothing
      // committed. busy_timeout: another connection's write makes us wait, not fail.
      await this.#sql.unsafe("PRAGMA journal_mode = WAL")
      await this.#sql.unsafe("PRAGMA synchronous = NORMAL")
      await this.#sql.unsafe("PRAGMA busy_timeout = 5000")
    }
    await migrate(this.#sql, this.engine)
  }

  async enqueue(alert: AlertInput, options: EnqueueOptions): Promise<EnqueueOutcome> {
    const now = options.now ?? Date.now()
    const fp = alert.fingerprint
    return await this.#sql.begin(async (tx): Promise<EnqueueOutcome> => {
      const matched = async (): Promise<EnqueueOutcome | undefined> => {
        const rows: Row[] = await tx`
          SELECT i.* FROM dedupe d JOIN investigations i ON i.id = d.investigation_id
          WHERE d.fingerprint = ${fp} AND d.expires_at > ${now}`
        const row = rows[0]
        return row ? { kind: "deduplicated", investigation: fromRow(row) } : undefined
      }
      const seen = await matched()
      if (seen) return seen
      const queued: Array<{ n: number | string }> =
        await tx`SELECT count(*) AS n FROM investigations WHERE status = 'queued'`
      if (Number(queued[0]?.n ?? 0) >= options.maxQueued) return { kind: "full" }
      const id = `inv_${crypto.randomUUID().replaceAll("-", "")}`
      const expires = now + options.dedupeWindow * 1000
      // Atomic across replicas: of two intakes of one fingerprint, one inserts (or takes over an
      // expired row), the other updates nothing and reports the first one's investigation.
      const won: Array<{ investigation_id: string }> = await tx`
        INSERT INTO dedupe (fingerprint, investigation_id, expires_at) VALUES (${fp}, ${id}, ${expires})
        ON CONFLICT (fingerprint) DO UPDATE SET investigation_id = excluded.investigation_id, expires_at = excluded.expires_at
        WHERE dedupe.expires_at <= ${now}
        RETURNING investigation_id`
      if (won.length === 0) return (await matched()) ?? { kind: "full" }
      const rows: Row[] = await tx`
        INSERT INTO investigations (id, fingerprint, status, alert, created_at, attempts, deliveries)
        VALUES (${id}, ${fp}, 'queued', ${JSON.stringify(alert)}, ${now}, 0, '[]')
        RETURNING *`
      return { kind: "created", investigation: fromRow(rows[0] as Row) }
    })
  }

  async claim(owner: string, leaseMs: number, now = Date.now()): Promise<Investigation | undefined> {
    const until = now + leaseMs
    const lock =
      this.engine === "postgres" ? this.#sql.unsafe("FOR UPDATE SKIP LOCKED") : this.#sql.unsafe("")
    const rows: Row[] = await this.#sql`
      UPDATE investigations
      SET status = 'running', lease_owner = ${owner}, lease_until = ${until}, started_at = ${now},
          finished_at = NULL, attempts = attempts + 1
      WHERE id = (
        SELECT id FROM investigations
        WHERE status = 'queued' OR (status = 'running' AND lease_until < ${now})
        ORDER BY created_at, id LIMIT 1 ${lock}
      )
      RETURNING *`
    const row = rows[0]
    return row ? fromRow(row) : undefined
  }

  async renew(id: string, owner: string, leaseMs: number, now = Date.now()): Promise<boolean> {
    const result = await this.#sql`
      UPDATE investigations SET lease_until = ${now + leaseMs}
      WHERE id = ${id} AND lease_owner = ${owner} AND status = 'running'`
    return result.count > 0
  }

  async finish(
    id: string,
    owner: string,
    outcome:
      | { status: "done"; result: InvestigationResult }
      | { status: "failed"; error: string; result?: InvestigationResult },
  ): Promise<boolean> {
    const result = outcome.result ? JSON.stringify(outcome.result) : null
    const error = outcome.status === "failed" ? outcome.error : null
    const updated = await this.#sql`
      UPDATE investigations
      SET status = ${outcome.status}, result = ${result}, error = ${error}, finished_at = ${Date.now()},
          lease_owner = NULL, lease_until = NULL
      WHERE id = ${id} AND lease_owner = ${owner} AND status = 'running'`
    return updated.count > 0
  }

  async release(id: string, owner: string): Promise<boolean> {
    const updated = await this.#sql`
      UPDATE investigations SET status = 'queued', lease_owner = NULL, lease_until = NULL
      WHERE id = ${id} AND lease_owner = ${owner} AND status = 'running'`
    return updated.count > 0
  }

  async requeueAllRunning(): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.#sql`
      UPDATE investigations SET status = 'queued', lease_owner = NULL, lease_until = NULL
      WHERE status = 'running' RETURNING id`
    return rows.map((r) => r.id)
  }

  async setDeliveries(id: string, deliveries: Delivery[]): Promise<void> {
    await this.#sql`UPDATE investigations SET deliveries = ${JSON.stringify(deliveries)} WHERE id = ${id}`
  }

  async finishedBetween(since: number, before: number, limit: number): Promise<Investigation[]> {
    const columns = this.#sql.unsafe(SUMMARY)
    const rows: Row[] = await this.#sql`
      SELECT ${columns} FROM investigations
      WHERE status IN ('done', 'failed') AND finished_at >= ${since} AND finished_at < ${before}
      ORDER BY finished_at LIMIT ${limit}`
    return rows.map(fromRow)
  }

  async get(id: string): Promise<Investigation | undefined> {
    const rows: Row[] = await this.#sql`SELECT * FROM investigations WHERE id = ${id}`
    const row = rows[0]
    return row ? fromRow(row) : undefined
  }

  async list({ status, limit }: ListOptions): Promise<Investigation[]> {
    const columns = this.#sql.unsafe(SUMMARY)
    const rows: Row[] = status
      ? await this
          .#sql`SELECT ${columns} FROM investigations WHERE status = ${status} ORDER BY created_at DESC, id DESC LIMIT ${limit}`
      : await this
          .#sql`SELECT ${columns} FROM investigations ORDER BY created_at DESC, id DESC LIMIT ${limit}`
    return rows.map(fromRow)
  }

  async counts(): Promise<Record<InvestigationStatus, number>> {
    const rows: Array<{ status: string; n: number | string }> = await this.#sql`
      SELECT status, count(*) AS n FROM investigations GROUP BY status`
    const counts = { queued: 0, running: 0, done: 0, failed: 0 }
    for (const row of rows) if (isStatus(row.status)) counts[row.status] = Number(row.n)
    return counts
  }

  async close(): Promise<void> {
    await this.#sql.close({ timeout: 5 })
  }
}

function isStatus(value: string): value is InvestigationStatus {
  return (INVESTIGATION_STATUSES as readonly string[]).includes(value)
}

function num(value: number | string | null): number | null {
  return value === null ? null : Number(value)
}

function fromRow(row: Row): Investigation {
  return {
    id: row.id,
    fingerprint: row.fingerprint,
    status: isStatus(row.status) ? row.status : "failed",
    alert: JSON.parse(row.alert) as AlertInput,
    createdAt: Number(row.created_at),
    startedAt: num(row.started_at),
    finishedAt: num(row.finished_at),
    attempts: Number(row.attempts),
    result: row.result ? (JSON.parse(row.result) as InvestigationResult) : null,
    error: row.error,
    deliveries: JSON.parse(row.deliveries) as Delivery[],
  }
}
