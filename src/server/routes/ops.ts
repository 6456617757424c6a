import type { Config } from "../../config/config.ts"
import { errorMessage } from "../../errors.ts"
import type { Runtime } from "../../runtime/runtime.ts"
import type { ContainmentInfo } from "../../tool/containment/index.ts"
import { containmentWire } from "../../tool/containment/report.ts"
import { toolsetState } from "../../tool/toolset-status.ts"
import { COMMIT, VERSION } from "../../version.ts"
import { jsonResponse } from "../errors.ts"
import type { ActiveRuns } from "../runs.ts"

/**
 * Whether a chat can be answered (`/readyz`): config and toolsets loaded, and at least one model
 * that can be called. Prerequisite checks run in the background.
 */
export class Readiness {
  ready = false
  error: string | undefined
  /** Why no model can be called, judged from config (no provider is asked); undefined when one can. */
  readonly modelError: string | undefined

  constructor(runtime: Runtime) {
    this.modelError = modelReadiness(runtime.config).error
    try {
      // Loaded = config parsed and toolsets built (CONTRACT §5). Prerequisite checks (kubectl,
      // docker...) are lazy by design and keep running in the background; a slow or hanging one
      // must not hold readiness, and a failed one only disables its toolset.
      const executor = runtime.executor
      this.ready = true
      // Started on the loop's next turn: their spawns (~10-20 ms) must not hold the /readyz that
      // may be building this.
      setImmediate(() => {
        executor.ensureReady().catch((error: unknown) => {
          this.error = `Toolsets could not be checked: ${errorMessage(error)}`
        })
      })
    } catch (error) {
      // A broken toolset file: the server still answers, but says why it is not ready.
      this.error = errorMessage(error)
    }
  }
}

export function readyz(readiness: Readiness, runs: ActiveRuns): Response {
  if (runs.draining) return jsonResponse(503, { status: "shutting_down" })
  // Every chat would fail: a load balancer must not send traffic here (the reason: /api/info).
  if (readiness.modelError) return jsonResponse(503, { status: "no_model", detail: readiness.modelError })
  if (!readiness.ready) {
    return jsonResponse(503, { status: "starting", ...(readiness.error ? { detail: readiness.error } : {}) })
  }
  return jsonResponse(200, { status: "ok" })
}

/** `GET /api/info`: what an operator checks first when answers look wrong. */
export function info(
  runtime: Runtime,
  readiness: Readiness,
  containment: ContainmentInfo,
): Record<string, unknown> {
  const { config } = runtime
  let toolsets: Array<Record<string, unknown>> = []
  try {
    toolsets = runtime.executor.toolsets.map((t) =>
      toolsetState(t, ["name", "enabled", "status", "error", "tools"]),
    )
  } catch (error) {
    toolsets = [
      { name: "(toolsets)", enabled: false, status: "failed", error: errorMessage(error), tools: [] },
    ]
  }
  return {
    version: VERSION,
    commit: COMMIT,
    ready: readiness.ready && !readiness.modelError,
    // Why `ready` is false (no callable model, a toolset file that does not load), else null.
    not_ready_reason: readiness.modelError ?? (readiness.ready ? null : (readiness.error ?? "starting")),
    default_model: config.model ?? config.modelNames()[0] ?? null,
    models: config.modelNames(),
    toolsets,
    // How tool processes are contained on this host (docs/security.md).
    containment: containmentWire(containment),
  }
}

export type ModelReadiness = {
  /** Set when no configured model can be called: what is missing. */
  error: string | undefined
  /** Each configured model that cannot be called, with what is missing (for the start-up log). */
  problems: Array<{ model: string; problem: string }>
}

/**
 * Which configured models can be called, judged from config alone: a model is resolvable and has
 * its key where its provider needs one (Ollama needs none). `serve` warns about each that cannot;
 * with none left, or when the default model cannot be called, `/readyz` is 503, because every
 * chat (or every chat that names no model) would fail.
 */
export function modelReadiness(config: Config): ModelReadiness {
  const names = config.modelNames()
  if (names.length === 0) {
    const error = "no model configured: pass --model, set MODEL, or set model: in the config file"
    return { error, problems: [] }
  }
  const problems = names.flatMap((model) => {
    const problem = config.modelProblem(model)
    return problem ? [{ model, problem }] : []
  })
  // A request that names no model gets the default one: if it cannot be called, most chats fail.
  const fallback = config.model ?? names[0]
  const defaultProblem = problems.find((p) => p.model === fallback)
  const error =
    problems.length === names.length
      ? `no model can be called: ${problems.map((p) => p.problem).join("; ")}`
      : defaultProblem
        ? `the default model ${fallback} cannot be called (requests that name no model fail): ${defaultProblem.problem}`
        : undefined
  return { error, problems }
}
