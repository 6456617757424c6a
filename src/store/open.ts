import { mkdirSync } from "node:fs"
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
    // 0700: the records hold alert labels and tool output.
    if (settings.path !== ":memory:") mkdirSync(dirname(settings.path), { recursive: true, mode: 0o700 })
    store = SqlInvestigationStore.sqlite(settings.path)
  }
  await store.migrate()
  return store
}
