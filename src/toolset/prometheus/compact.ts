/**
 * Prometheus results as compact text the model reads: a header line, then one compact JSON value
 * per line (series, label, alert, rule), stopping before the byte cap. When items are left out the
 * last line says how many and how to narrow the request, so the model asks a better question
 * instead of reasoning from a silently partial answer.
 */
export type Rendered = { text: string; count: number; shown: number }

export function renderItems(
  header: string,
  items: readonly unknown[],
  maxBytes: number,
  narrow: string,
): Rendered {
  const lines = [header]
  let size = Buffer.byteLength(header) + 1
  let shown = 0
  let firstTooBig = 0
  for (const item of items) {
    const line = JSON.stringify(item)
    const bytes = Buffer.byteLength(line) + 1
    if (size + bytes > maxBytes) {
      if (shown === 0) firstTooBig = bytes
      break
    }
    lines.push(line)
    size += bytes
    shown++
  }
  if (shown < items.length) {
    const why =
      shown === 0
        ? `the first one alone is ${firstTooBig} bytes, more than the ${maxBytes}-byte output cap`
        : `output capped at ${maxBytes} bytes`
    lines.push(`[showing ${shown} of ${items.length}: ${why}. ${narrow}]`)
  }
  return { text: lines.join("\n"), count: items.length, shown }
}

export const NARROW_QUERY =
  "Narrow the query: add label matchers, aggregate (sum by (namespace) (...)), or use topk(10, ...)"
export const NARROW_RANGE = `${NARROW_QUERY}; for a range query also shorten the range or raise the step`

type QueryData = { resultType?: string; result?: unknown }

/** `data` of /api/v1/query or /api/v1/query_range. */
export function renderQueryResult(data: unknown, maxBytes: number, range: boolean): string {
  const { resultType = "unknown", result } = (data ?? {}) as QueryData
  if (!Array.isArray(result)) return `resultType: ${resultType}\n${JSON.stringify(result ?? null)}`
  if (result.length === 0) return `resultType: ${resultType}; 0 series (the query matched nothing)`
  const header = `resultType: ${resultType}; ${result.length} series`
  return renderItems(header, result, maxBytes, range ? NARROW_RANGE : NARROW_QUERY).text
}

type RuleGroup = { name?: string; file?: string; rules?: Array<Record<string, unknown>> }

/** Rules flattened to one line each, with their group; active alerts counted (get_current_alerts lists them). */
export function flattenRules(data: unknown): Array<Record<string, unknown>> {
  const groups = ((data ?? {}) as { groups?: RuleGroup[] }).groups ?? []
  const out: Array<Record<string, unknown>> = []
  for (const group of groups) {
    for (const rule of group.rules ?? []) {
      const { alerts, evaluationTime: _e, lastEvaluation: _l, ...rest } = rule
      out.push({
        group: group.name,
        ...rest,
        ...(Array.isArray(alerts) ? { active_alerts: alerts.length } : {}),
      })
    }
  }
  return out
}

export function withWarnings(text: string, warnings: readonly string[]): string {
  return warnings.length > 0 ? `warnings: ${warnings.join("; ")}\n${text}` : text
}
