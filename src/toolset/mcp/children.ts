/**
 * The process groups of running stdio MCP servers. When dupin exits for any reason (the end of
 * `ask`, serve's shutdown, process.exit on Ctrl-C, an uncaught error), every group still alive is
 * killed, so no server outlives dupin. A SIGTERM or SIGHUP that nothing else in dupin handles
 * (`ask` has no handler; `serve` drains and exits) would end dupin without the exit hook: the
 * groups are killed first, then the signal ends dupin as it would have.
 */
const groups = new Set<number>()
let hooked = false
const FATAL_SIGNALS = ["SIGTERM", "SIGHUP"] as const

export function trackChild(pid: number): void {
  groups.add(pid)
  if (hooked) return
  hooked = true
  process.once("exit", killAll)
  for (const signal of FATAL_SIGNALS) process.on(signal, onFatalSignal)
}

export function forgetChild(pid: number): void {
  groups.delete(pid)
}

/** Process groups of the stdio servers still running (tests). */
export function runningChildren(): number[] {
  return [...groups]
}

function onFatalSignal(signal: NodeJS.Signals): void {
  // Another handler (serve's drain) owns the signal and exits through the exit hook.
  if (process.listenerCount(signal) > 1) return
  killAll()
  for (const s of FATAL_SIGNALS) process.off(s, onFatalSignal)
  process.kill(process.pid, signal)
}

function killAll(): void {
  for (const pid of groups) {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {
      // Already gone.
    }
  }
  groups.clear()
}
