/** Public entry point `dupin/config`. */
export { Config, type ConfigInit } from "../config/config.ts"
export { applyContainment, type SecuritySettings } from "../config/security.ts"
export { RunbookCatalog, type RunbookEntry } from "../runbook/catalog.ts"
export {
  type ContainmentInfo,
  type ContainmentOptions,
  configureContainment,
  containmentInfo,
} from "../tool/containment/index.ts"
