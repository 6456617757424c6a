/**
 * Times the model passes to Prometheus tools: RFC 3339, Unix seconds, or `now` / `now-1h`
 * (a convenience Prometheus itself lacks). Anything else is passed through unchanged so Prometheus
 * answers with its own `bad_data` error, which the model can read and correct.
 */
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }

/** Unix seconds for `now`, `now-30m`, a number or an RFC 3339 date; undefined when unparsable. */
export function toUnixSeconds(value: string, now: number): number | undefined {
  const text = value.trim()
  const relative = /^now(?:\s*-\s*(\d+)([smhdw]))?$/.exec(text)
  if (relative) return now - (relative[1] ? Number(relative[1]) * (UNIT_SECONDS[relative[2] ?? "s"] ?? 1) : 0)
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text)
  const parsed = Date.parse(text)
  return Number.isNaN(parsed) ? undefined : parsed / 1000
}

/** The form sent to Prometheus: resolved relative times, everything else as given. */
export function timeParam(value: string, now: number): string {
  return /^now/.test(value.trim()) ? String(toUnixSeconds(value, now) ?? value) : value
}

/** A step giving at most ~`points` points over the range, in whole seconds (Prometheus caps at 11,000). */
export function defaultStep(start: number, end: number, points = 250): string {
  return `${Math.max(1, Math.ceil((end - start) / points))}s`
}
