/**
 * Kernel pipes for the helper. Bun has no pipe(2), and `stdin: other.stdout` relays through a
 * socket (a cut-off producer would see ECONNRESET, not SIGPIPE); a FIFO opened at both ends and
 * unlinked at once is a plain pipe. mkfifo is called through libc: no process per pipe.
 */

import { dlopen, FFIType } from "bun:ffi"
import { closeSync, constants, openSync, rmSync } from "node:fs"

const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]

type Mkfifo = (path: Uint8Array, mode: number) => number
let mkfifoFn: Mkfifo | undefined

function mkfifo(): Mkfifo {
  if (mkfifoFn) return mkfifoFn
  for (const name of LIBC_NAMES) {
    try {
      const libc = dlopen(name, { mkfifo: { args: [FFIType.ptr, FFIType.u32], returns: FFIType.i32 } })
      mkfifoFn = (path, mode) => libc.symbols.mkfifo(path, mode)
      return mkfifoFn
    } catch {
      // Not this libc; try the next name.
    }
  }
  throw new Error("mkfifo: no libc found")
}

export type OsPipe = { read: number; write: number }

let counter = 0

/** A pipe as two fds, made in `dir` (the run's private temp dir) and unlinked before use. */
export function osPipe(dir: string): OsPipe {
  const path = `${dir}/.dupin-pipe-${process.pid}-${++counter}`
  if (mkfifo()(new TextEncoder().encode(`${path}\0`), 0o600) !== 0) throw new Error(`mkfifo ${path} failed`)
  try {
    // The O_RDWR open lets the two one-way opens return at once.
    const hold = openSync(path, constants.O_RDWR)
    try {
      const read = openSync(path, constants.O_RDONLY)
      return { read, write: openSync(path, constants.O_WRONLY) }
    } finally {
      closeSync(hold)
    }
  } finally {
    rmSync(path, { force: true })
  }
}

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Already closed.
  }
}
