/**
 * Waiting that an `AbortSignal` can cut short. Every async path takes a signal (STYLE.md); these
 * are the few ways a wait honours one, written once so each keeps its listener tidy.
 */
import { AbortError } from "./errors.ts"

const abortError = (): unknown => new AbortError()

/**
 * `promise`, or a rejection as soon as `signal` aborts (at once if it already has). The promise
 * itself goes on; this only stops waiting for it, so work that ignores the signal cannot hold the
 * caller. `reason` builds the rejection: an `AbortError` unless the caller needs another.
 */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  reason: (signal: AbortSignal) => unknown = abortError,
): Promise<T> {
  if (!signal) return promise
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason(signal))
    if (signal.aborted) onAbort()
    else signal.addEventListener("abort", onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort))
  })
}

/** Resolves after `ms`, or rejects with AbortError as soon as the signal fires. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError())
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortError())
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}

/** Resolves after `ms`, or at once when `signal` aborts: a pause that a shutdown ends early. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    signal.addEventListener("abort", done, { once: true })
  })
}
