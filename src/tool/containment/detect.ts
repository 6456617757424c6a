/**
 * Finds out once, at startup, how far this host lets dupin contain tool processes: a real run of
 * each mechanism with the same namespace flags a tool gets (a few ms), because a present binary
 * proves nothing (user namespaces off by sysctl, AppArmor, seccomp, a systemd unit's
 * RestrictNamespaces=).
 */

import { bwrapBaseArgs } from "./bwrap.ts"
import type { ContainmentMechanism } from "./types.ts"
import { unshareArgs } from "./unshare.ts"

/** Host programs are looked up here only: a PATH entry the tool env controls must not pick them. */
export const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

export type Programs = {
  bwrap: string | null
  unshare: string | null
  prlimit: string | null
  true: string | null
  sh: string | null
}

export type Detected = {
  mechanism: ContainmentMechanism | null
  programs: Programs
  /** Why a mechanism that is present did not work. */
  failures: string[]
}

export function findPrograms(overrides: Partial<Programs> = {}): Programs {
  const find = (name: string) => Bun.which(name, { PATH: SYSTEM_PATH }) ?? null
  return {
    bwrap: overrides.bwrap === undefined ? find("bwrap") : overrides.bwrap,
    unshare: overrides.unshare === undefined ? find("unshare") : overrides.unshare,
    prlimit: overrides.prlimit === undefined ? find("prlimit") : overrides.prlimit,
    true: find("true"),
    sh: find("sh"),
  }
}

export function detect(programs: Programs, root: boolean): Detected {
  const failures: string[] = []
  if (process.platform !== "linux" || !programs.true) return { mechanism: null, programs, failures }
  if (programs.bwrap) {
    const failure = probe([programs.bwrap, ...bwrapBaseArgs(root), "--", programs.true])
    if (!failure) return { mechanism: "bwrap", programs, failures }
    failures.push(`bwrap does not work here: ${failure}`)
  }
  if (programs.unshare && programs.sh) {
    const failure = probe([...unshareArgs(programs.unshare), programs.true])
    if (!failure) return { mechanism: "unshare", programs, failures }
    failures.push(`unshare does not work here: ${failure}`)
  }
  return { mechanism: null, programs, failures }
}

/** Null when the command ran and exited 0, else its first line of complaint. */
function probe(argv: string[]): string | null {
  try {
    const run = Bun.spawnSync(argv, {
      env: { PATH: SYSTEM_PATH },
      stdout: "ignore",
      stderr: "pipe",
      timeout: 5000,
    })
    if (run.exitCode === 0) return null
    return run.stderr.toString().trim().split("\n")[0] || `exit code ${run.exitCode ?? run.signalCode}`
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
