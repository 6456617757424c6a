import { constants } from "node:os"
import type { StageEnd } from "./protocol.ts"

/**
 * The helper's own children (stages, namespace inits): each waiter is answered when a SIGCHLD's
 * `reap` finds its child ended. `reapOne` is waitpid(WNOHANG): the status, or null while it runs.
 */
export class Children {
  readonly #waiting = new Map<number, (status: number) => void>()

  constructor(private readonly reapOne: (pid: number) => number | null) {}

  /** The child's wait status once it has ended. */
  exited(pid: number): Promise<number> {
    return new Promise((resolve) => {
      this.#waiting.set(pid, resolve)
      this.reap()
    })
  }

  reap(): void {
    for (const [pid, resolve] of this.#waiting) {
      const status = this.reapOne(pid)
      if (status === null) continue
      this.#waiting.delete(pid)
      resolve(status)
    }
  }
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, n]) => [n as number, name]))

/** A wait status as Bun reports a subprocess's end. */
export function endOf(status: number): StageEnd {
  if (status < 0) return { exitCode: null, signalCode: "SIGKILL" }
  const signal = status & 0x7f
  if (signal === 0) return { exitCode: (status >> 8) & 0xff, signalCode: null }
  return { exitCode: null, signalCode: SIGNAL_NAMES.get(signal) ?? String(signal) }
}

/** Signals a stage's process group (each stage leads its own session). */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: the group is already empty.
  }
}
