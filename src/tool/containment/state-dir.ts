/**
 * dupin's own temp state (the runs' temp dirs, spilled tool outputs) lives in one folder per
 * process, `<tmpdir>/dupin-sandbox-<pid>-XXXXXX` (0700), hidden in every sandbox: one conversation's
 * spilled outputs are out of reach of every tool (R7). It is removed at exit and on SIGTERM/SIGHUP
 * (src/fatal-signals.ts); a dupin killed by SIGKILL runs nothing, so the next start removes the
 * folders whose owner is dead (R17).
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { atFatalExit } from "../../fatal-signals.ts"

const PREFIX = "dupin-sandbox-"
/** Folders named `dupin-<kind>-<owner pid>-XXXXXX`: the state folder and serve's socket folder. */
const OWNED = /^dupin-(sandbox|http)-(\d+)-[^-]+$/
/** Names older dupin versions used, without an owner: removed once they are a day old. */
const LEGACY = /^dupin-(runs|pipe)-[^-]+$/

/**
 * `stopUsers` ends what may still write into the folder (the tool sandboxes: a helper makes its
 * spare run folders there): it runs first, and the removal retries while the last writes land,
 * or a folder made meanwhile kept the tree (one left per `dupin toolsets` run in the test suite).
 */
export function makeStateDir(stopUsers: () => void = () => {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`)))
  atFatalExit(() => {
    stopUsers()
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 })
  })
  return dir
}

/** Where spilled outputs go: `output/` of the state folder, or the temp dir when uncontained. */
export function stateDir(root: string | null): string {
  if (!root) return tmpdir()
  const dir = join(root, "output")
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

/**
 * Removes state folders of dupin processes that no longer run. The owner is the pid in the name;
 * a legacy folder without one is removed when it is older than a day and not ours.
 */
export function removeStaleStateDirs(parent = tmpdir()): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = readdirSync(parent)
  } catch {
    return removed
  }
  const uid = process.getuid?.()
  for (const name of names) {
    const owned = OWNED.exec(name)
    const owner = owned ? Number(owned[2]) : null
    if (owner === null && !LEGACY.test(name)) continue
    const path = join(parent, name)
    try {
      const stat = statSync(path)
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue
      if (owner !== null ? owner === process.pid || alive(owner) : Date.now() - stat.mtimeMs < DAY_MS)
        continue
      rmSync(path, { recursive: true, force: true })
      removed.push(path)
    } catch {
      // Raced with its owner or another dupin: leave it.
    }
  }
  return removed
}

const DAY_MS = 24 * 60 * 60 * 1000

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as { code?: string }).code === "EPERM"
  }
}
