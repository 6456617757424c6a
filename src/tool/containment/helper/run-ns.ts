/**
 * Each run's own pid and mount namespace (issue 18: runs of one view saw each other's processes,
 * cmdlines and environments). Bun cannot run code between fork and exec, and a fresh /proc can
 * only be mounted by a process inside the new pid namespace, so a few lines of C, compiled once
 * per helper start with the TinyCC inside Bun (`bun:ffi` `cc`), do it:
 *
 * - `rn_make` clones a child into a new pid and mount namespace (CLONE_VM|CLONE_VFORK, like
 *   posix_spawn: no copy of the helper's memory). The child mounts a read-only /proc of that
 *   namespace, hides the view's run area behind an empty tmpfs with only this run's folder bound
 *   back, leaves the helper descriptors of both namespaces and of its /proc, and execs `cat` on a
 *   pipe the helper holds: that process is the namespace's init, and the whole namespace dies
 *   with it (the kernel kills every process in it). This is done ahead of the run (a spare).
 * - `rn_enter`/`rn_leave` move the helper's thread into a spare's namespaces and back around
 *   Bun.spawn, so the run's processes are started by Bun (its pipes, its exit codes) inside them.
 *
 * The helper holds every capability inside its sandbox's user namespace (it needs them for the
 * mounts); `rn_init` clears the inheritable, ambient and bounding sets of its thread, so nothing
 * it execs, uid 0 included, gets any.
 */
import { cc, ptr } from "bun:ffi"
import { closeSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { RUN_NS_C } from "./run-ns-c.ts"

type Symbols = {
  rn_init(): number
  rn_make(area: Uint8Array, dir: Uint8Array, init: Uint8Array, privateProc: number, out: number): number
  rn_spawn(
    mnt: number,
    pid: number,
    argv: number,
    envp: number,
    cwd: Uint8Array,
    fd0: number,
    fd1: number,
    fd2: number,
    err: number,
  ): number
  rn_reap(pid: number, status: number): number
  rn_pipe(fds: number): number
}

/** A run's namespaces, made ahead of the run. */
export type RunNamespace = {
  /** The namespace's init (pid in the helper's namespace); the namespace dies with it. */
  init: number
  mnt: number
  pid: number
  /** The run's /proc (private) or the host's (host flavor), as a descriptor. */
  proc: number
  /** Closing this ends the init, and with it the namespace; -1 once ended. */
  life: number
  /** The run's own folder: its TMPDIR, the only part of the view's run area it sees. */
  dir: string
}

const SPARE_STEPS = [
  "",
  "make mounts private",
  "mount a private /proc",
  "open the run folder",
  "hide the run area",
  "make the run folder's mount point",
  "bind the run folder",
  "open the namespace descriptors",
  "make the lifetime pipe",
  "unshare the descriptor table",
  "set up stdin",
  "set up stdout/stderr",
  "start the namespace's init",
]

/** errno values a start can fail with, by name (Linux, every architecture Bun runs on). */
const ERRNO: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  8: "ENOEXEC",
  13: "EACCES",
  20: "ENOTDIR",
  21: "EISDIR",
}

/** Why a stage did not start: `code` as Bun.spawn's errors name it. */
export class StartError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

const cstr = (s: string) => new TextEncoder().encode(`${s}\0`)

/** A NULL-ended array of C strings; the buffers must live as long as the call. */
function cstrings(values: string[]): { array: BigUint64Array; keep: Uint8Array[] } {
  const keep = values.map(cstr)
  const array = new BigUint64Array(values.length + 1)
  keep.forEach((buffer, i) => {
    array[i] = BigInt(ptr(buffer))
  })
  return { array, keep }
}

export class RunNamespaces {
  readonly #symbols: Symbols

  private constructor(symbols: Symbols) {
    this.#symbols = symbols
  }

  /** Compiles the C above (a few ms, once per helper) in `dir`, and prepares the helper's thread. */
  static load(dir: string): RunNamespaces {
    const file = join(dir, `.dupin-run-ns-${process.pid}.c`)
    writeFileSync(file, RUN_NS_C)
    let symbols: Symbols
    try {
      symbols = cc({
        source: file,
        symbols: {
          rn_init: { args: [], returns: "int" },
          rn_make: { args: ["ptr", "ptr", "ptr", "int", "ptr"], returns: "int" },
          rn_spawn: {
            args: ["int", "int", "ptr", "ptr", "ptr", "int", "int", "int", "ptr"],
            returns: "int",
          },
          rn_reap: { args: ["int", "ptr"], returns: "int" },
          rn_pipe: { args: ["ptr"], returns: "int" },
        },
      }).symbols as unknown as Symbols
    } finally {
      rmSync(file, { force: true })
    }
    const ready = symbols.rn_init()
    if (ready !== 0) throw new Error(`cannot drop the capabilities of what the helper runs (step ${-ready})`)
    return new RunNamespaces(symbols)
  }

  make(area: string, dir: string, init: string, privateProc: boolean): RunNamespace {
    const out = new Int32Array(6)
    const pid = this.#symbols.rn_make(cstr(area), cstr(dir), cstr(init), privateProc ? 1 : 0, ptr(out))
    if (pid <= 0) {
      for (const fd of out.subarray(0, 5)) if (fd >= 0) closeFd(fd)
      const step = SPARE_STEPS[-pid] ?? "clone"
      throw new Error(`cannot make the run's namespaces: ${step} failed (errno ${out[5]})`)
    }
    closeFd(out[4]!)
    return { init: pid, mnt: out[0]!, pid: out[1]!, proc: out[2]!, life: out[3]!, dir }
  }

  /**
   * Starts `argv` (argv[0] an absolute path) in the run's namespaces, in a session of its own, with
   * the given descriptors as stdin, stdout and stderr (-1: /dev/null). Throws a StartError.
   */
  spawn(
    ns: RunNamespace,
    argv: string[],
    env: Record<string, string>,
    cwd: string | null,
    stdio: [number, number, number],
  ): number {
    const args = cstrings(argv)
    const envp = cstrings(Object.entries(env).map(([k, v]) => `${k}=${v}`))
    const err = new Int32Array(1)
    const pid = this.#symbols.rn_spawn(
      ns.mnt,
      ns.pid,
      ptr(args.array),
      ptr(envp.array),
      cstr(cwd ?? ""),
      stdio[0],
      stdio[1],
      stdio[2],
      ptr(err),
    )
    if (pid > 0) return pid
    const code = ERRNO[err[0]!] ?? `E${err[0]}`
    // A cwd that cannot be entered reads as ENOENT, as Bun.spawn reports it.
    if (pid === -2) throw new StartError("ENOENT", `cannot enter ${cwd}: ${code}`)
    if (pid === -3) throw new StartError(code, `cannot run ${argv[0]}: ${code}`)
    throw new StartError("EHELPER", `cannot start in the run's namespaces (step ${-pid}, ${code})`)
  }

  /** The wait status once `pid` (a child of the helper) has ended; null while it runs or when it is not ours. */
  reap(pid: number): number | null {
    const status = new Int32Array(1)
    const got = this.#symbols.rn_reap(pid, ptr(status))
    if (got === pid) return status[0]!
    return got < 0 ? -1 : null
  }

  /** A kernel pipe (both ends close-on-exec; a spawn places them on the child's stdio). */
  pipe(): { read: number; write: number } {
    const fds = new Int32Array(2)
    if (this.#symbols.rn_pipe(ptr(fds)) !== 0) throw new Error("pipe2 failed")
    return { read: fds[0]!, write: fds[1]! }
  }

  /** Ends a namespace: its init, and with it every process in it, is killed. */
  end(ns: RunNamespace): void {
    if (ns.life < 0) return
    try {
      process.kill(ns.init, "SIGKILL")
    } catch {
      // Gone already.
    }
    for (const fd of [ns.mnt, ns.pid, ns.proc, ns.life]) closeFd(fd)
    ns.life = -1
  }
}

export function closeFd(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Already closed.
  }
}
