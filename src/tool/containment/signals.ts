import { constants } from "node:os"

const NAMES = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name]))

/**
 * A process's end as dupin reports it. Behind a wrapper (bwrap, unshare) a tool killed by a
 * signal shows as exit code 128+n; it is turned back into the signal, so `kubectl get | head`
 * still sees its producer's SIGPIPE as the normal cut-off it is. A tool that itself exits with
 * 129-192 is reported as killed by that signal: the price of the wrapper.
 */
export function exitOf(
  proc: { exitCode: number | null; signalCode: string | number | null },
  wrapped: boolean,
): { exitCode: number | null; signalCode: string | null } {
  if (proc.signalCode !== null) return { exitCode: null, signalCode: String(proc.signalCode) }
  const code = proc.exitCode
  const name = wrapped && code !== null && code > 128 ? NAMES.get(code - 128) : undefined
  return name ? { exitCode: null, signalCode: name } : { exitCode: code, signalCode: null }
}
