import type { SecuritySettings } from "../config/security.ts"
import { type ContainmentInfo, configureContainment } from "../tool/containment/index.ts"

/**
 * Applies the settings to the process-global tool containment. The CLI commands call it after
 * loading the config; the runtime calls it when it first builds a Config's executor when nothing did, so a
 * Config built in code is contained too (issue 19.3). Constructing a Config changes nothing.
 */
export function applyContainment(settings: SecuritySettings): ContainmentInfo {
  return configureContainment({
    mode: settings.containment,
    maxConcurrentProcesses: settings.maxConcurrentToolProcesses,
    proc: settings.proc,
    secretPaths: [...settings.hiddenPaths],
  })
}
