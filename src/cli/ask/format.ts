/** How the CLI shows a tool call in one line: `kubectl_describe(kind=pod, name=web-1)`. */

const MAX_VALUE = 60
const MAX_LINE = 160
// Values that read unambiguously without quotes.
const PLAIN = /^[\w./:@%+-]+$/

export function formatCall(name: string, params: Record<string, unknown>): string {
  const args = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(", ")
  return clip(`${name}(${args})`, MAX_LINE)
}

function formatValue(value: unknown): string {
  const text =
    typeof value === "string" && PLAIN.test(value) ? value : (JSON.stringify(value) ?? String(value))
  return clip(text, MAX_VALUE)
}

export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ")
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** `0.4s`, `12s`, `2m05s`: short enough for a progress line. */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
}

/** Parses a model's tool-call arguments for display; anything unparsable shows as no arguments. */
export function parseArguments(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json)
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}
