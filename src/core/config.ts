/** Public entry point `dupin/config`. */
export { Config, type ConfigInit } from "../config/config.ts"
export { RunbookCatalog, type RunbookEntry } from "../runbook/catalog.ts"
