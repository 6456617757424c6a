import type { Config } from "../../config/config.ts"
import { errorMessage } from "../../errors.ts"
import { toolExecutorFor } from "../../runtime/runtime.ts"
import { containmentInfo } from "../../tool/containment/index.ts"
import { containmentWire } from "../../tool/containment/report.ts"
import { McpToolset } from "../../toolset/mcp/index.ts"
import { COMMIT, VERSION } from "../../version.ts"
import { jsonResponse } from "../errors.ts"
import type { ActiveRuns } from "../runs.ts"

/** Whether config and toolsets are loaded (`/readyz`). Prerequisite checks run in the background. */
export class Readiness {
  ready = false
  error: string | undefined

  constructor(config: Config) {
    try {
      // Loaded = config parsed and toolsets built (CONTRACT §5). Prerequisite checks (kubectl,
      // docker...) are lazy by design and keep running in the background; a slow or hanging one
      // must not hold readiness, and a failed one only disables its toolset.
      const executor = toolExecutorFor(config)
      this.ready = true
      executor.ensureReady().catch((error: unknown) => {
        this.error = `Toolsets could not be checked: ${errorMessage(error)}`
      })
    } catch (error) {
      // A broken toolset file: the server still answers, but says why it is not ready.
      this.error = errorMessage(error)
    }
  }
}

export function readyz(readiness: Readiness, runs: ActiveRuns): Response {
  if (runs.closing) return jsonResponse(503, { status: "shutting_down" })
  if (!readiness.ready) {
    return jsonResponse(503, { status: "starting", ...(readiness.error ? { detail: readiness.error } : {}) })
  }
  return jsonResponse(200, { status: "ok" })
}

/** `GET /api/info`: what an operator checks first when answers look wrong. */
export function info(config: Config, readiness: Readiness): Record<string, unknown> {
  let toolsets: Array<Record<string, unknown>> = []
  try {
    toolsets = toolExecutorFor(config).toolsets.map((t) => ({
      name: t.name,
      enabled: t.enabled,
      status: t.status,
      error: t.error ?? null,
      tools: t.tools.map((tool) => tool.name),
      // MCP servers: how dupin reaches them (never the URL or headers: they can hold tokens).
      ...(t instanceof McpToolset ? { transport: t.transport } : {}),
    }))
  } catch (error) {
    toolsets = [
      { name: "(toolsets)", enabled: false, status: "failed", error: errorMessage(error), tools: [] },
    ]
  }
  return {
    version: VERSION,
    commit: COMMIT,
    ready: readiness.ready,
    default_model: config.model ?? config.modelNames()[0] ?? null,
    models: config.modelNames(),
    toolsets,
    // How tool processes are contained on this host (docs/security.md).
    containment: containmentWire(containmentInfo()),
  }
}
