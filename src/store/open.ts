import { accessSync, constants, mkdirSync } from "node:fs"
import { dirname } from "node:path"
import type { StoreSettings } from "../config/alerts.ts"
import { type Env, expandEnv } from "../config/env.ts"
import type { SqlInvestigationStore } from "./sql-store.ts"
import type { InvestigationStore } from "./store.ts"

/**
 * Opens (and migrates) the configured store: SQLite at `store.path`, or PostgreSQL at `store.url`.
 * The SQL store (and Bun's SQL client with it, ~10 ms of a start) loads here, not with `serve`:
 * most servers have no alert intake.
 */
export async function openStore(settings: StoreSettings, env: Env): Promise<InvestigationStore> {
  const { SqlInvestigationStore } = await import("./sql-store.ts")
  let store: SqlInvestigationStore
  if (settings.engine === "postgres") {
    store = SqlInvestigationStore.postgres(expandEnv(settings.url, env, "store.url"))
  } else {
    makeSqliteFolder(settings.path)
    store = SqlInvestigationStore.sqlite(settings.path)
  }
  await store.migrate()
  return store
}

/**
 * The SQLite file's folder, made (0700: the records hold alert labels and tool output) and checked
 * writable; throws the file system's error. `serve` calls it before it binds, so a path dupin
 * cannot use stops the start instead of leaving alert intake answering 503.
 */
export function makeSqliteFolder(path: string): void {
  if (path === ":memory:") return
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  accessSync(dirname(path), constants.W_OK)
}
