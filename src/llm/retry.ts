/**
 * Retry timing for provider calls. We run our own loop (the SDK's is off) so that every wait is
 * abortable by the caller's signal (`abortableSleep` in src/abort.ts) and bounded, whatever a provider's headers ask for.
 */

/** Backoff never grows past this: a request should fail in minutes, not hours. */
export const MAX_BACKOFF_MS = 8_000
/** A provider asking for a longer pause still gets retried after this long. */
export const MAX_RETRY_AFTER_MS = 60_000

/** Statuses worth another attempt: throttling, timeouts, lock conflicts, server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/**
 * The wait a provider asked for, in ms: `retry-after-ms`, else `retry-after` as seconds or an
 * HTTP date. Undefined when absent or unparsable. Capped at MAX_RETRY_AFTER_MS.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "")
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_AFTER_MS)
  const value = headers.get("retry-after")?.trim()
  if (!value) return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(Number(value) * 1000, MAX_RETRY_AFTER_MS)
  const date = Date.parse(value)
  if (Number.isNaN(date)) return undefined
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS)
}

/**
 * Exponential backoff with jitter for attempt 0, 1, 2…: base·2^attempt, capped, minus up to 25%
 * so clients that failed together do not retry together.
 */
export function backoffMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** attempt, MAX_BACKOFF_MS)
  return Math.round(exponential * (1 - 0.25 * random()))
}

/** The provider's requested wait if it gave one, else our backoff. */
export function retryDelayMs(attempt: number, baseMs: number, headers?: Headers): number {
  return retryAfterMs(headers) ?? backoffMs(attempt, baseMs)
}
