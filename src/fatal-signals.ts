/**
 * Cleanups that must run however dupin ends: at exit (the end of a command, process.exit, an
 * uncaught error) and on a SIGTERM or SIGHUP that nothing else in dupin handles (`ask` has no
 * handler: a closed terminal or a `kill` would end it without the exit hook; `serve` drains and
 * exits, so the exit hook runs). On such a signal the cleanups run, then the signal ends dupin as
 * it would have. SIGKILL runs nothing: the next start removes what a dead dupin left.
 */
const cleanups = new Set<() => void>()
const FATAL_SIGNALS = ["SIGTERM", "SIGHUP"] as const
let hooked = false

/** Runs `cleanup` once when dupin ends; the returned function unregisters it. */
export function atFatalExit(cleanup: () => void): () => void {
  cleanups.add(cleanup)
  if (!hooked) {
    hooked = true
    process.once("exit", runCleanups)
    for (const signal of FATAL_SIGNALS) process.on(signal, onFatalSignal)
  }
  return () => cleanups.delete(cleanup)
}

function runCleanups(): void {
  for (const cleanup of [...cleanups]) {
    cleanups.delete(cleanup)
    try {
      cleanup()
    } catch {
      // One failed cleanup must not keep the others from running.
    }
  }
}

function onFatalSignal(signal: NodeJS.Signals): void {
  // Another handler (serve's drain) owns the signal and exits through the exit hook.
  if (process.listenerCount(signal) > 1) return
  runCleanups()
  for (const s of FATAL_SIGNALS) process.off(s, onFatalSignal)
  process.kill(process.pid, signal)
}
