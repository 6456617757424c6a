import { ToolParameter } from "../../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../../tool/result.ts"
import { Tool, type ToolContext, type ToolInit } from "../../tool/tool.ts"
import { type ApiOutcome, type PrometheusSettings, prometheusApi, prometheusSettings } from "./client.ts"
import { flattenRules, NARROW_QUERY, renderItems, renderQueryResult, withWarnings } from "./compact.ts"
import { defaultStep, timeParam, toUnixSeconds } from "./time.ts"

const TIME_HELP = "RFC 3339, Unix seconds, or now / now-1h"

const param = {
  query: () => new ToolParameter({ type: "string", description: "PromQL expression" }),
  description: () =>
    new ToolParameter({
      type: "string",
      required: false,
      description: "What the query is for (shown to the user)",
    }),
  time: (what: string) =>
    new ToolParameter({ type: "string", required: false, description: `${what} (${TIME_HELP})` }),
  match: (required: boolean) =>
    new ToolParameter({
      type: "array",
      required,
      items: { type: "string" },
      description: 'Series selectors, e.g. ["up{job=\\"api\\"}"]',
    }),
}

type ApiRequest = Parameters<typeof prometheusApi>[1]
type Params = Record<string, unknown>

/** One Prometheus API tool: its definition, the request its arguments make, how the answer reads. */
type PrometheusToolSpec = ToolInit & {
  request: (params: Params) => ApiRequest
  render: (data: unknown, settings: PrometheusSettings, params: Params) => string
}

/**
 * Every Prometheus tool: reads its settings from the toolset config at call time, sends the
 * spec's request and turns the API outcome into a result (the query URL as its invocation).
 */
export class PrometheusTool extends Tool {
  readonly #spec: PrometheusToolSpec

  constructor(spec: PrometheusToolSpec) {
    super(spec)
    this.#spec = spec
  }

  protected async invoke(params: Params, context: ToolContext): Promise<StructuredToolResult> {
    // The request first: a time argument that does not parse fails the call before the settings do.
    const request = this.#spec.request(params)
    const settings = prometheusSettings(this.toolset?.config ?? {})
    if (typeof settings === "string") return StructuredToolResult.error(settings)
    const outcome: ApiOutcome = await prometheusApi(settings, request, context.signal)
    const invocation = `${settings.url.origin}${settings.url.pathname}${request.path}${request.params ? `?${request.params}` : ""}`
    if (!outcome.ok)
      return new StructuredToolResult({ status: ToolResultStatus.ERROR, error: outcome.message, invocation })
    return new StructuredToolResult({
      status: ToolResultStatus.SUCCESS,
      data: withWarnings(this.#spec.render(outcome.data, settings, params), outcome.warnings),
      invocation,
    })
  }
}

function addRange(form: URLSearchParams, params: Params, now: number): void {
  if (typeof params.start === "string") form.set("start", timeParam(params.start, now))
  if (typeof params.end === "string") form.set("end", timeParam(params.end, now))
}

/** `match[]` selectors and an optional range: the form of the series and label endpoints. */
function matchForm(params: Params): URLSearchParams {
  const form = new URLSearchParams()
  if (Array.isArray(params.match)) for (const m of params.match) form.append("match[]", String(m))
  addRange(form, params, nowSeconds())
  return form
}

/** An answer read as a list (`items`), rendered with its count (`title`) and a hint for narrowing it. */
function listOf(
  title: (count: number, params: Params) => string,
  hint: string,
  items: (data: unknown) => unknown[] = (data) => (Array.isArray(data) ? data : []),
): PrometheusToolSpec["render"] {
  return (data, settings, params) => {
    const list = items(data)
    return renderItems(title(list.length, params), list, settings.maxOutputBytes, hint).text
  }
}

const nowSeconds = () => Date.now() / 1000

/** The toolset's tools, built afresh for each toolset. */
export function prometheusTools(): PrometheusTool[] {
  const specs: PrometheusToolSpec[] = [
    {
      name: "execute_prometheus_instant_query",
      description:
        "Evaluate a PromQL expression at one point in time (default now). Returns the matching series.",
      parameters: {
        query: param.query(),
        time: param.time("Evaluation time"),
        description: param.description(),
      },
      request: (params) => {
        const form = new URLSearchParams({ query: String(params.query) })
        if (typeof params.time === "string") form.set("time", timeParam(params.time, nowSeconds()))
        return { path: "/api/v1/query", params: form, method: "POST" }
      },
      render: (data, s) => renderQueryResult(data, s.maxOutputBytes, false),
    },
    {
      name: "execute_prometheus_range_query",
      description:
        "Evaluate a PromQL expression over a time range. Defaults: end now, start one hour before end, a step giving about 250 points.",
      parameters: {
        query: param.query(),
        start: param.time("Range start"),
        end: param.time("Range end"),
        step: new ToolParameter({
          type: "string",
          required: false,
          description: "Resolution: a duration (30s, 5m) or seconds",
        }),
        description: param.description(),
      },
      request: (params) => {
        const now = nowSeconds()
        const end = typeof params.end === "string" ? timeParam(params.end, now) : String(now)
        const endSeconds = toUnixSeconds(end, now) ?? now
        const start =
          typeof params.start === "string" ? timeParam(params.start, now) : String(endSeconds - 3600)
        const startSeconds = toUnixSeconds(start, now) ?? endSeconds - 3600
        const step =
          typeof params.step === "string" && params.step.trim()
            ? params.step.trim()
            : defaultStep(startSeconds, endSeconds)
        const form = new URLSearchParams({ query: String(params.query), start, end, step })
        return { path: "/api/v1/query_range", params: form, method: "POST" }
      },
      render: (data, s) => renderQueryResult(data, s.maxOutputBytes, true),
    },
    {
      name: "get_series",
      description: "List the series (label sets) matching selectors, optionally within a time range.",
      parameters: {
        match: param.match(true),
        start: param.time("Range start"),
        end: param.time("Range end"),
      },
      request: (params) => ({ path: "/api/v1/series", params: matchForm(params), method: "POST" }),
      render: listOf((count) => `${count} series`, NARROW_QUERY),
    },
    {
      name: "get_label_names",
      description: "List label names, optionally only those of series matching selectors.",
      parameters: {
        match: param.match(false),
        start: param.time("Range start"),
        end: param.time("Range end"),
      },
      request: (params) => ({ path: "/api/v1/labels", params: matchForm(params), method: "POST" }),
      render: listOf((count) => `${count} label names`, "Pass match to narrow the list"),
    },
    {
      name: "get_label_values",
      description:
        "List the values of one label (e.g. namespace, job, pod), optionally for series matching selectors.",
      parameters: {
        label: new ToolParameter({ type: "string", description: "Label name, e.g. job" }),
        match: param.match(false),
        start: param.time("Range start"),
        end: param.time("Range end"),
      },
      request: (params) => ({
        path: `/api/v1/label/${encodeURIComponent(String(params.label))}/values`,
        params: matchForm(params),
      }),
      render: listOf(
        (count, params) => `${count} values of ${String(params.label)}`,
        "Pass match to narrow the list",
      ),
    },
    {
      name: "get_current_alerts",
      description: "List the alerts currently pending or firing in Prometheus.",
      request: () => ({ path: "/api/v1/alerts" }),
      render: (data, s) => {
        const alerts = ((data ?? {}) as { alerts?: unknown[] }).alerts ?? []
        if (alerts.length === 0) return "0 alerts pending or firing"
        return renderItems(
          `${alerts.length} alerts`,
          alerts,
          s.maxOutputBytes,
          "Query ALERTS{alertname=...} to narrow",
        ).text
      },
    },
    {
      name: "get_rules",
      description: "List alerting and recording rules with their state, health and last error.",
      parameters: {
        type: new ToolParameter({
          type: "string",
          required: false,
          enum: ["alert", "record"],
          description: "Only this kind",
        }),
      },
      request: (params) =>
        typeof params.type === "string"
          ? { path: "/api/v1/rules", params: new URLSearchParams({ type: params.type }) }
          : { path: "/api/v1/rules" },
      render: listOf((count) => `${count} rules`, "Pass type=alert or type=record to narrow", flattenRules),
    },
  ]
  return specs.map((spec) => new PrometheusTool(spec))
}
