/**
 * The process groups of running stdio MCP servers. When dupin exits for any reason (the end of
 * `ask`, serve's shutdown, process.exit on Ctrl-C, an uncaught error), every group still alive is
 * killed, so no server outlives dupin, also on a SIGTERM or SIGHUP (src/fatal-signals.ts).
 */
import { atFatalExit } from "../../fatal-signals.ts"

const groups = new Set<number>()
let hooked = false

export function trackChild(pid: number): void {
  groups.add(pid)
  if (hooked) return
  hooked = true
  atFatalExit(killAll)
}

export function forgetChild(pid: number): void {
  groups.delete(pid)
}

/** Process groups of the stdio servers still running (tests). */
export function runningChildren(): number[] {
  return [...groups]
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
  // Killed once more if dupin lives on and starts servers again (tests).
  hooked = false
}
