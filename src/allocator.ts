/**
 * How `dupin serve` sets up Bun's native allocator before anything else runs.
 *
 * Bun's native memory (HTTP buffers, fetch bodies, the JIT's compiler memory) comes from mimalloc,
 * which by default gives a page back to the kernel (madvise) 10 ms after it empties. Under a steady
 * stream of conversations the same pages are given back and faulted in again all the time: at 50
 * clients that was ~18 madvise calls and 3–5 ms of kernel CPU per conversation, a third of the
 * server's CPU (`bun run bench`, server-load). With purging off the server keeps what a burst made
 * it take, up to its peak RSS, and reuses it.
 *
 * mimalloc reads its options once, when the process starts, so `serve` re-executes itself once
 * (the same binary and arguments, the same pid: execve) with `MIMALLOC_PURGE_DELAY=-1` unless the
 * environment already sets the option (the systemd unit and the Kubernetes manifests do). That
 * costs one Bun start (15–25 ms) at `serve`'s start and nothing after. An operator who prefers
 * memory given back after a burst sets the option to mimalloc's own default, `10` (README,
 * `dupin serve`). What the re-execution added is taken back out of its environment, so nothing
 * dupin starts inherits it.
 */
export const PURGE_DELAY = "MIMALLOC_PURGE_DELAY"
/** Set on the re-executed process only: the option came from dupin, not from the operator. */
const SET_BY_DUPIN = "DUPIN_ALLOCATOR_SET"

type Process = Pick<NodeJS.Process, "argv" | "execArgv" | "execPath" | "env"> & {
  execve?: (file: string, args: string[], env: Record<string, string | undefined>) => void
}

/**
 * For `serve`: re-executes the process with the allocator option when the environment does not
 * set it (returns only if it did not re-execute). In the re-executed process, takes dupin's
 * variables back out of the environment.
 */
export function setUpAllocator(proc: Process = process): void {
  if (proc.env[SET_BY_DUPIN] === "1") {
    delete proc.env[SET_BY_DUPIN]
    delete proc.env[PURGE_DELAY]
    return
  }
  if (proc.argv[2] !== "serve" || proc.env[PURGE_DELAY] !== undefined || !proc.execve) return
  try {
    proc.execve(proc.execPath, reexecArgv(proc), { ...proc.env, [PURGE_DELAY]: "-1", [SET_BY_DUPIN]: "1" })
  } catch {
    // Not possible here (no execve): serve runs with the allocator's defaults.
  }
}

/** The same command line: a compiled binary's argv[1] is its embedded entry, not a file to run. */
export function reexecArgv(proc: Pick<Process, "argv" | "execArgv" | "execPath">): string[] {
  const [, entry = "", ...args] = proc.argv
  if (entry.startsWith("/$bunfs/")) return [proc.execPath, ...args]
  return [proc.execPath, ...proc.execArgv, entry, ...args]
}
