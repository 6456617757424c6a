/**
 * What `dupin serve` tells its operator at start, in the journal: which build runs, from which
 * config, with which default model and tool containment; then, once the prerequisite checks have
 * run (in the background, after the port is bound), every toolset that failed and why. Before
 * this, an operator learnt of a missing kubectl from the model's answers.
 */
import type { Config } from "../config/config.ts"
import { errorMessage } from "../errors.ts"
import { log } from "../log.ts"
import type { Runtime } from "../runtime/runtime.ts"
import { containmentInfo } from "../tool/containment/index.ts"
import { COMMIT, VERSION } from "../version.ts"

export function logStart(config: Config, url: string): void {
  const names = config.modelNames()
  log.info(`dupin ${VERSION} serving on ${url}`, {
    version: VERSION,
    commit: COMMIT,
    config: config.configFile ?? null,
    default_model: config.model ?? names[0] ?? null,
    models: names,
    containment: containmentInfo().level,
  })
}

/** Once the checks are done: one warning per failed toolset, naming its reason. */
export async function logToolsetStatus(runtime: Runtime): Promise<void> {
  const { executor } = runtime
  try {
    await executor.ensureReady()
  } catch (error) {
    log.warn("toolsets could not be checked", { error: errorMessage(error) })
    return
  }
  const failed = executor.toolsets.filter((t) => t.status === "failed")
  for (const toolset of failed) {
    log.warn(`toolset ${toolset.name} failed: ${toolset.error ?? "no reason given"}`, {
      toolset: toolset.name,
      error: toolset.error ?? null,
      ...(toolset.docsUrl ? { docs_url: toolset.docsUrl } : {}),
    })
  }
  const enabled = executor.toolsets.filter((t) => t.status === "enabled").map((t) => t.name)
  log.info("toolsets checked", { enabled, failed: failed.map((t) => t.name) })
}
