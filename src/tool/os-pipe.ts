/**
 * The kernel pipe between two stages of a pipeline (spawn.ts): stage N writes straight into it and
 * stage N+1 reads it, so shell semantics hold (EOF, backpressure, SIGPIPE) and no byte passes
 * through dupin.
 */
import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export type OsPipe = { read: number; write: number }

/**
 * A kernel pipe as two fds. Bun has no pipe(2) and relays `stdin: other.stdout` through a socket
 * (a cut-off producer then sees ECONNRESET, not SIGPIPE), so this goes through a FIFO: the O_RDWR
 * open lets the two one-way opens return at once, and the FIFO is unlinked before use.
 */
export function osPipe(env: Record<string, string>): OsPipe {
  const dir = mkdtempSync(join(tmpdir(), "dupin-pipe-"))
  const path = join(dir, "fifo")
  try {
    const PATH = `${env.PATH ?? ""}:/usr/bin:/bin`
    const made = Bun.spawnSync(["mkfifo", "-m", "600", path], { env: { PATH }, stderr: "pipe" })
    if (made.exitCode !== 0) throw new Error(made.stderr.toString().trim() || "mkfifo failed")
    const hold = openSync(path, constants.O_RDWR)
    try {
      const read = openSync(path, constants.O_RDONLY)
      return { read, write: openSync(path, constants.O_WRONLY) }
    } finally {
      closeSync(hold)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Already closed.
  }
}
