import type { SecuritySettings } from "../config/security.ts"
import { type ContainmentInfo, configureContainment } from "../tool/containment/index.ts"

/**
 * Applies the settings to the process-global tool containment. Called once by the entry points
 * that run tools for real (the CLI commands); a Config built in a library or test does not change
 * process state by being constructed.
 */
export function applyContainment(settings: SecuritySettings): ContainmentInfo {
  return configureContainment({
    mode: settings.containment,
    maxConcurrentProcesses: settings.maxConcurrentToolProcesses,
    proc: settings.proc,
    secretPaths: [...settings.hiddenPaths],
  })
}
