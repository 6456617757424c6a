/**
 * The store's schema as numbered migrations, applied in order once each and recorded in
 * `schema_migrations`, so a newer dupin upgrades an older database in place. Append, never edit:
 * a database in the field has already run the earlier ones. The SQL is the subset SQLite and
 * PostgreSQL share (times are epoch milliseconds, JSON is text).
 */
import type { SQL } from "bun"

export type Migration = { version: number; statements: readonly string[] }

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE investigations (
        id TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL,
        alert TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_until BIGINT,
        result TEXT,
        error TEXT,
        deliveries TEXT NOT NULL DEFAULT '[]'
      )`,
      "CREATE INDEX investigations_queue ON investigations (status, created_at)",
      "CREATE INDEX investigations_created ON investigations (created_at)",
      // One row per fingerprint: the investigation that covers it until `expires_at`. Its primary
      // key makes dedupe atomic across replicas (INSERT ... ON CONFLICT).
      `CREATE TABLE dedupe (
        fingerprint TEXT PRIMARY KEY,
        investigation_id TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
    ],
  },
]

/**
 * Applies the migrations this database has not run. On PostgreSQL an advisory lock makes replicas
 * that start together take turns, so each migration runs once.
 */
export async function migrate(sql: SQL, engine: "sqlite" | "postgres"): Promise<void> {
  await sql.unsafe(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
  )
  await sql.begin(async (tx) => {
    if (engine === "postgres") await tx.unsafe("SELECT pg_advisory_xact_lock(2323)")
    const rows: Array<{ version: number | string }> = await tx`SELECT version FROM schema_migrations`
    const applied = new Set(rows.map((r) => Number(r.version)))
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue
      for (const statement of migration.statements) await tx.unsafe(statement)
      await tx`INSERT INTO schema_migrations (version, applied_at) VALUES (${migration.version}, ${Date.now()})`
    }
  })
}
