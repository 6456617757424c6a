import type { SecuritySettings } from "../config/security.ts"
import {
  type ContainmentInfo,
  type ContainmentOptions,
  configureContainment,
  configureContainmentInBackground,
} from "../tool/containment/index.ts"

/**
 * Applies the settings to the process-global tool containment. The CLI commands call it after
 * loading the config (serve: `applyContainmentInBackground`); the runtime calls it when it first
 * builds a Config's executor when nothing did, so a Config built in code is contained too (issue
 * 19.3). Constructing a Config changes nothing.
 */
export function applyContainment(settings: SecuritySettings): ContainmentInfo {
  return configureContainment(options(settings))
}

/**
 * `serve`'s way, after loading the config: the host's probes run while it builds its toolsets and
 * routes, and every tool run waits for them (containment/index.ts).
 */
export function applyContainmentInBackground(settings: SecuritySettings): Promise<ContainmentInfo> {
  return configureContainmentInBackground(options(settings))
}

function options(settings: SecuritySettings): ContainmentOptions {
  return {
    mode: settings.containment,
    maxConcurrentProcesses: settings.maxConcurrentToolProcesses,
    proc: settings.proc,
    secretPaths: [...settings.hiddenPaths],
  }
}
