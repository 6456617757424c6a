/**
 * Structured logging: one JSON line per event on stderr. Values under secret-looking keys are
 * replaced before they are written, so a config dump or request echo never leaks a key.
 */
import { redactSecretValues } from "./redact-values.ts"

export type LogLevel = "DEBUG" | "INFO" | "WARN" | "ERROR"

const ORDER: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40 }
const SECRET_KEY = /(api[_-]?key|authorization|token|secret|password|signature)/i

let threshold: LogLevel = "INFO"
let readable = false
let sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`)

/** Sets the minimum level written. Returns the previous one. */
export function setLogLevel(level: LogLevel): LogLevel {
  const previous = threshold
  threshold = level
  return previous
}

/** Redirects log lines (tests, the CLI's quiet mode). Returns the previous sink. */
export function setLogSink(next: (line: string) => void): (line: string) => void {
  const previous = sink
  sink = next
  return previous
}

/**
 * Readable lines instead of JSON (`warning: msg (key=value, ...)`): for a person at a terminal
 * (`dupin ask`), where JSON lines would land in the middle of the conversation. Returns the
 * previous setting.
 */
export function setReadableLogs(on: boolean): boolean {
  const previous = readable
  readable = on
  return previous
}

const LABEL: Record<LogLevel, string> = { DEBUG: "debug", INFO: "info", WARN: "warning", ERROR: "error" }

function readableLine(level: LogLevel, msg: string, fields: Record<string, unknown>): string {
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const shown = SECRET_KEY.test(key) && typeof value === "string" ? "[REDACTED]" : value
      return `${key}=${typeof shown === "string" ? shown : JSON.stringify(shown)}`
    })
  return `${LABEL[level]}: ${msg}${parts.length ? ` (${parts.join(", ")})` : ""}`
}

function write(level: LogLevel, msg: string, fields: Record<string, unknown>): void {
  if (ORDER[level] < ORDER[threshold]) return
  // Configured secret values go whatever field carries them (an error text, a command line).
  if (readable) {
    sink(redactSecretValues(readableLine(level, msg, fields)))
    return
  }
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }, (key, value) =>
    key && SECRET_KEY.test(key) && typeof value === "string" ? "[REDACTED]" : value,
  )
  sink(redactSecretValues(line))
}

export const log = {
  debug: (msg: string, fields: Record<string, unknown> = {}) => write("DEBUG", msg, fields),
  info: (msg: string, fields: Record<string, unknown> = {}) => write("INFO", msg, fields),
  warn: (msg: string, fields: Record<string, unknown> = {}) => write("WARN", msg, fields),
  error: (msg: string, fields: Record<string, unknown> = {}) => write("ERROR", msg, fields),
}
