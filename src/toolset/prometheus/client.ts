import { type Static, Type } from "@sinclair/typebox"
import { Value } from "@sinclair/typebox/value"
import { VERSION } from "../../version.ts"

/** `toolsets.prometheus/metrics.config`. */
export const PrometheusConfigSchema = Type.Object(
  {
    prometheus_url: Type.String({
      pattern: "^https?://",
      description: "Base URL of the Prometheus HTTP API, e.g. http://prometheus.monitoring:9090",
    }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: "Headers sent with every request to Prometheus (and only to it), e.g. Authorization",
      }),
    ),
    timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600 })),
    max_output_bytes: Type.Optional(
      Type.Integer({ minimum: 1024, description: "Bytes of result kept per call" }),
    ),
  },
  { additionalProperties: false },
)
export type PrometheusConfig = Static<typeof PrometheusConfigSchema>

export type PrometheusSettings = {
  url: URL
  headers: Record<string, string>
  timeoutSeconds: number
  maxOutputBytes: number
}

export const PROMETHEUS_DEFAULTS = { timeoutSeconds: 30, maxOutputBytes: 40_000 }

/** Settings from a toolset config, or a message saying what is wrong with it. */
export function prometheusSettings(config: Record<string, unknown>): PrometheusSettings | string {
  if (typeof config.prometheus_url !== "string" || !config.prometheus_url) {
    return "Prometheus is not configured: set toolsets.prometheus/metrics.config.prometheus_url (e.g. http://prometheus:9090)."
  }
  // Walked, not compiled: a few keys, and compiling would cost every start.
  if (!Value.Check(PrometheusConfigSchema, config)) {
    const first = [...Value.Errors(PrometheusConfigSchema, config)][0]
    return `Invalid prometheus/metrics config: ${first?.path || "/"}: ${first?.message}`
  }
  let url: URL
  try {
    url = new URL(config.prometheus_url)
  } catch {
    return `Invalid prometheus_url: ${config.prometheus_url}`
  }
  // A path prefix (http://host/prometheus) is kept; API paths are appended to it.
  url.pathname = url.pathname.replace(/\/+$/, "")
  return {
    url,
    headers: config.headers ?? {},
    timeoutSeconds: config.timeout_seconds ?? PROMETHEUS_DEFAULTS.timeoutSeconds,
    maxOutputBytes: config.max_output_bytes ?? PROMETHEUS_DEFAULTS.maxOutputBytes,
  }
}

export type ApiOutcome =
  | { ok: true; data: unknown; warnings: string[] }
  | { ok: false; status: number; message: string }

type Request = {
  path: string
  params?: URLSearchParams
  /** POST sends params as a form: long PromQL never hits a URL length limit. */
  method?: "GET" | "POST"
}

const MAX_REDIRECTS = 3

/**
 * One call to the Prometheus HTTP API. Failures come back as messages for the model: HTTP status
 * plus Prometheus' own `errorType`/`error`, so a bad query can be corrected from the reply.
 */
export async function prometheusApi(
  settings: PrometheusSettings,
  request: Request,
  signal: AbortSignal,
): Promise<ApiOutcome> {
  const response = await send(settings, request, signal)
  if (typeof response === "string") return { ok: false, status: 0, message: response }
  const text = await response.text()
  let body:
    | { status?: string; data?: unknown; warnings?: string[]; errorType?: string; error?: string }
    | undefined
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  if (response.ok && body?.status === "success")
    return { ok: true, data: body.data, warnings: body.warnings ?? [] }
  const detail = body?.error
    ? `${body.errorType ? `${body.errorType}: ` : ""}${body.error}`
    : text.trim().slice(0, 2000) || "(empty body)"
  return {
    ok: false,
    status: response.status,
    message: `Prometheus returned HTTP ${response.status} for ${request.path}: ${detail}`,
  }
}

/** A raw response, or a message when Prometheus could not be reached. */
export async function send(
  settings: PrometheusSettings,
  request: Request,
  signal: AbortSignal,
): Promise<Response | string> {
  const timeout = AbortSignal.timeout(settings.timeoutSeconds * 1000)
  const combined = AbortSignal.any([signal, timeout])
  const method = request.method ?? "GET"
  let url = new URL(settings.url.href)
  url.pathname = `${url.pathname}${request.path}`
  if (method === "GET" && request.params) url.search = request.params.toString()
  const headers: Record<string, string> = {
    "user-agent": `dupin/${VERSION}`,
    accept: "application/json",
    ...settings.headers,
  }
  if (method === "POST") headers["content-type"] = "application/x-www-form-urlencoded"
  try {
    for (let hop = 0; ; hop++) {
      const response = await fetch(url, {
        method,
        headers,
        body: method === "POST" ? (request.params?.toString() ?? "") : undefined,
        signal: combined,
        // Redirects are followed by hand and only within the Prometheus origin: the configured
        // headers (often a bearer token) must never reach another host.
        redirect: "manual",
      })
      const location = response.headers.get("location")
      if (response.status < 300 || response.status >= 400 || !location) return response
      await response.body?.cancel()
      const next = new URL(location, url)
      if (next.origin !== settings.url.origin) {
        return `Prometheus at ${settings.url.origin} redirected to another origin (${next.origin}); not followed, so the configured headers stay with Prometheus. Fix prometheus_url.`
      }
      if (hop >= MAX_REDIRECTS) return `Too many redirects from Prometheus (last to ${next.href}).`
      url = next
    }
  } catch (error) {
    if (signal.aborted) throw error
    if (timeout.aborted) {
      return `Prometheus did not answer within ${settings.timeoutSeconds} s (${request.path}). Narrow the query or shorten the range.`
    }
    return `Cannot reach Prometheus at ${settings.url.origin}: ${error instanceof Error ? error.message : String(error)}`
  }
}
