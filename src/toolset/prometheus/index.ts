import type { Prerequisite, PrerequisiteContext, PrerequisiteOutcome } from "../../tool/prerequisite.ts"
import { Toolset, ToolsetTag } from "../../tool/toolset.ts"
import type { ToolsetFactory } from "../kind.ts"
import { PrometheusConfigSchema, prometheusSettings, send } from "./client.ts"
import { prometheusTools } from "./tools.ts"

export { type PrometheusConfig, PrometheusConfigSchema } from "./client.ts"

export const PROMETHEUS_TOOLSET = "prometheus/metrics"

/**
 * Config first (a clear "set prometheus_url"), then one request: `/-/ready`, falling back to
 * `/api/v1/status/buildinfo` for Prometheus-compatible servers (Thanos, Mimir, VictoriaMetrics)
 * that serve the API under a prefix without Prometheus' own readiness endpoint.
 */
export class PrometheusReadyPrerequisite implements Prerequisite {
  async check(context: PrerequisiteContext): Promise<PrerequisiteOutcome> {
    const settings = prometheusSettings(context.config)
    if (typeof settings === "string") return [false, settings]
    const bounded = { ...settings, timeoutSeconds: Math.min(settings.timeoutSeconds, context.timeoutSeconds) }
    const failures: string[] = []
    for (const path of ["/-/ready", "/api/v1/status/buildinfo"]) {
      const response = await send(bounded, { path }, context.signal)
      if (typeof response === "string") return [false, response]
      const body = (await response.text()).trim().slice(0, 300)
      if (response.ok) return [true, ""]
      failures.push(`${path}: HTTP ${response.status}${body ? ` ${body}` : ""}`)
    }
    return [false, `Prometheus at ${settings.url.href} is not ready (${failures.join("; ")}).`]
  }
}

/**
 * The `prometheus/metrics` toolset. Off until configured: enabled when `config.prometheus_url` is
 * set or `enabled: true` (then the prerequisite says what is missing).
 */
export function createPrometheusToolset(
  entry: { enabled?: boolean; config?: Record<string, unknown> } = {},
): Toolset {
  const config = entry.config ?? {}
  return new Toolset({
    name: PROMETHEUS_TOOLSET,
    description: "Query Prometheus: PromQL, series, labels, alerts and rules",
    enabled: entry.enabled ?? typeof config.prometheus_url === "string",
    tools: prometheusTools(),
    tags: [ToolsetTag.CLUSTER],
    configClasses: [PrometheusConfigSchema],
    config,
    prerequisites: [new PrometheusReadyPrerequisite()],
    llmInstructions:
      "Prometheus tools: find metric and label names with get_label_names / get_label_values / get_series before guessing them. Prefer aggregated queries (sum by, topk, rate over a window) to raw series; a result that says it was capped needs a narrower query.",
  })
}

/** The registry entry: on once `config.prometheus_url` is set, or when enabled explicitly. */
export const prometheusToolset: ToolsetFactory = {
  name: PROMETHEUS_TOOLSET,
  configSchema: PrometheusConfigSchema,
  create: (settings) => createPrometheusToolset(settings),
}
