import { ToolParameter } from "../../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../../tool/result.ts"
import { Tool, type ToolContext } from "../../tool/tool.ts"
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

/** Reads its settings from the toolset config at call time and turns API outcomes into results. */
abstract class PrometheusTool extends Tool {
  protected settings(): PrometheusSettings | string {
    return prometheusSettings(this.toolset?.config ?? {})
  }

  protected async api(
    request: Parameters<typeof prometheusApi>[1],
    context: ToolContext,
    render: (data: unknown, settings: PrometheusSettings) => string,
  ): Promise<StructuredToolResult> {
    const settings = this.settings()
    if (typeof settings === "string") return StructuredToolResult.error(settings)
    const outcome: ApiOutcome = await prometheusApi(settings, request, context.signal)
    const invocation = `${settings.url.origin}${settings.url.pathname}${request.path}${request.params ? `?${request.params}` : ""}`
    if (!outcome.ok)
      return new StructuredToolResult({ status: ToolResultStatus.ERROR, error: outcome.message, invocation })
    return new StructuredToolResult({
      status: ToolResultStatus.SUCCESS,
      data: withWarnings(render(outcome.data, settings), outcome.warnings),
      invocation,
    })
  }
}

function addRange(form: URLSearchParams, params: Record<string, unknown>, now: number): void {
  if (typeof params.start === "string") form.set("start", timeParam(params.start, now))
  if (typeof params.end === "string") form.set("end", timeParam(params.end, now))
}

function addMatch(form: URLSearchParams, params: Record<string, unknown>): void {
  if (Array.isArray(params.match)) for (const m of params.match) form.append("match[]", String(m))
}

const nowSeconds = () => Date.now() / 1000

export class InstantQueryTool extends PrometheusTool {
  constructor() {
    super({
      name: "execute_prometheus_instant_query",
      description:
        "Evaluate a PromQL expression at one point in time (default now). Returns the matching series.",
      parameters: {
        query: param.query(),
        time: param.time("Evaluation time"),
        description: param.description(),
      },
    })
  }
  protected invoke(params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const form = new URLSearchParams({ query: String(params.query) })
    if (typeof params.time === "string") form.set("time", timeParam(params.time, nowSeconds()))
    return this.api({ path: "/api/v1/query", params: form, method: "POST" }, context, (data, s) =>
      renderQueryResult(data, s.maxOutputBytes, false),
    )
  }
}

export class RangeQueryTool extends PrometheusTool {
  constructor() {
    super({
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
    })
  }
  protected invoke(params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const now = nowSeconds()
    const end = typeof params.end === "string" ? timeParam(params.end, now) : String(now)
    const endSeconds = toUnixSeconds(end, now) ?? now
    const start = typeof params.start === "string" ? timeParam(params.start, now) : String(endSeconds - 3600)
    const startSeconds = toUnixSeconds(start, now) ?? endSeconds - 3600
    const step =
      typeof params.step === "string" && params.step.trim()
        ? params.step.trim()
        : defaultStep(startSeconds, endSeconds)
    const form = new URLSearchParams({ query: String(params.query), start, end, step })
    return this.api({ path: "/api/v1/query_range", params: form, method: "POST" }, context, (data, s) =>
      renderQueryResult(data, s.maxOutputBytes, true),
    )
  }
}

export class SeriesTool extends PrometheusTool {
  constructor() {
    super({
      name: "get_series",
      description: "List the series (label sets) matching selectors, optionally within a time range.",
      parameters: {
        match: param.match(true),
        start: param.time("Range start"),
        end: param.time("Range end"),
      },
    })
  }
  protected invoke(params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const form = new URLSearchParams()
    addMatch(form, params)
    addRange(form, params, nowSeconds())
    return this.api({ path: "/api/v1/series", params: form, method: "POST" }, context, (data, s) => {
      const list = Array.isArray(data) ? data : []
      return renderItems(`${list.length} series`, list, s.maxOutputBytes, NARROW_QUERY).text
    })
  }
}

export class LabelNamesTool extends PrometheusTool {
  constructor() {
    super({
      name: "get_label_names",
      description: "List label names, optionally only those of series matching selectors.",
      parameters: {
        match: param.match(false),
        start: param.time("Range start"),
        end: param.time("Range end"),
      },
    })
  }
  protected invoke(params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const form = new URLSearchParams()
    addMatch(form, params)
    addRange(form, params, nowSeconds())
    return this.api({ path: "/api/v1/labels", params: form, method: "POST" }, context, (data, s) => {
      const list = Array.isArray(data) ? data : []
      return renderItems(
        `${list.length} label names`,
        list,
        s.maxOutputBytes,
        "Pass match to narrow the list",
      ).text
    })
  }
}

export class LabelValuesTool extends PrometheusTool {
  constructor() {
    super({
      name: "get_label_values",
      description:
        "List the values of one label (e.g. namespace, job, pod), optionally for series matching selectors.",
      parameters: {
        label: new ToolParameter({ type: "string", description: "Label name, e.g. job" }),
        match: param.match(false),
        start: param.time("Range start"),
        end: param.time("Range end"),
      },
    })
  }
  protected invoke(params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const form = new URLSearchParams()
    addMatch(form, params)
    addRange(form, params, nowSeconds())
    const label = String(params.label)
    const path = `/api/v1/label/${encodeURIComponent(label)}/values`
    return this.api({ path, params: form }, context, (data, s) => {
      const list = Array.isArray(data) ? data : []
      return renderItems(
        `${list.length} values of ${label}`,
        list,
        s.maxOutputBytes,
        "Pass match to narrow the list",
      ).text
    })
  }
}

export class AlertsTool extends PrometheusTool {
  constructor() {
    super({
      name: "get_current_alerts",
      description: "List the alerts currently pending or firing in Prometheus.",
    })
  }
  protected invoke(_params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    return this.api({ path: "/api/v1/alerts" }, context, (data, s) => {
      const alerts = ((data ?? {}) as { alerts?: unknown[] }).alerts ?? []
      if (alerts.length === 0) return "0 alerts pending or firing"
      return renderItems(
        `${alerts.length} alerts`,
        alerts,
        s.maxOutputBytes,
        "Query ALERTS{alertname=...} to narrow",
      ).text
    })
  }
}

export class RulesTool extends PrometheusTool {
  constructor() {
    super({
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
    })
  }
  protected invoke(params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const form = typeof params.type === "string" ? new URLSearchParams({ type: params.type }) : undefined
    return this.api({ path: "/api/v1/rules", ...(form ? { params: form } : {}) }, context, (data, s) => {
      const rules = flattenRules(data)
      return renderItems(
        `${rules.length} rules`,
        rules,
        s.maxOutputBytes,
        "Pass type=alert or type=record to narrow",
      ).text
    })
  }
}
