/**
 * Finds out once, at startup, how far this host lets dupin contain tool processes: a real run of
 * each mechanism with the same namespace flags a tool gets (a few ms), because a present binary
 * proves nothing (user namespaces off by sysctl, AppArmor, seccomp, a systemd unit's
 * RestrictNamespaces=).
 */

import { errorMessage } from "../../errors.ts"
import { type BwrapFlavor, bwrapBaseArgs, type ProcView } from "./bwrap.ts"
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
  /** With bwrap: the variant that works here. */
  flavor: BwrapFlavor
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

/**
 * `hostProcAllowed`: dupin is non-dumpable, so the host's /proc may stand in when a private one
 * cannot be mounted. The kernel refuses a new proc mount in a user namespace while parts of the
 * current one are covered, and systemd's ProtectKernelTunables= and ProtectKernelLogs= cover
 * /proc/sys and /proc/kmsg.
 */
export function detect(
  programs: Programs,
  root: boolean,
  proc: ProcView,
  hostProcAllowed: boolean,
): Detected {
  const steps = probes(programs, root, proc, hostProcAllowed)
  let step = steps.next()
  while (!step.done) step = steps.next(probeSync(step.value))
  return step.value
}

/**
 * `detect` with the probes run as child processes the event loop waits for: ~20 ms of bwrap
 * start-up that `serve` and `ask` spend building their config and toolsets meanwhile.
 */
export async function detectInBackground(
  programs: Programs,
  root: boolean,
  proc: ProcView,
  hostProcAllowed: boolean,
): Promise<Detected> {
  const steps = probes(programs, root, proc, hostProcAllowed)
  let step = steps.next()
  while (!step.done) step = steps.next(await probeAsync(step.value))
  return step.value
}

/** Yields each probe's argv, is sent back its failure (null: it ran), returns what works. */
function* probes(
  programs: Programs,
  root: boolean,
  proc: ProcView,
  hostProcAllowed: boolean,
): Generator<string[], Detected, string | null> {
  const failures: string[] = []
  const none = { mechanism: null, flavor: { proc, disableUserns: false }, programs, failures }
  if (process.platform !== "linux" || !programs.true) return none
  if (programs.bwrap) {
    const flavors: BwrapFlavor[] = [
      { proc, disableUserns: true },
      { proc, disableUserns: false },
      ...(proc === "private" && hostProcAllowed
        ? [
            { proc: "host" as const, disableUserns: true },
            { proc: "host" as const, disableUserns: false },
          ]
        : []),
    ]
    let first: string | null = null
    for (const flavor of flavors) {
      const failure = yield [programs.bwrap, ...bwrapBaseArgs(root, flavor), "--", programs.true]
      first ??= failure
      if (failure) continue
      if (flavor.proc !== proc) {
        failures.push(
          `a private /proc cannot be mounted here (${first}; under systemd, ProtectKernelTunables= and ProtectKernelLogs= cover parts of /proc): tools see the host's /proc read-only, where dupin's entries are closed by non-dumpable alone`,
        )
      }
      if (!flavor.disableUserns)
        failures.push("tools may create nested user namespaces (/proc/sys is read-only here)")
      return { mechanism: "bwrap", flavor, programs, failures }
    }
    failures.push(`bwrap does not work here: ${first}`)
  }
  if (programs.unshare && programs.sh) {
    const failure = yield [...unshareArgs(programs.unshare), programs.true]
    if (!failure) return { ...none, mechanism: "unshare", flavor: { proc: "private", disableUserns: false } }
    failures.push(`unshare does not work here: ${failure}`)
  }
  return none
}

const PROBE_TIMEOUT_MS = 5000

/** Null when the command ran and exited 0, else its first line of complaint. */
function probeSync(argv: string[]): string | null {
  try {
    const run = Bun.spawnSync(argv, {
      env: { PATH: SYSTEM_PATH },
      stdout: "ignore",
      stderr: "pipe",
      timeout: PROBE_TIMEOUT_MS,
    })
    return complaint(run.exitCode, run.signalCode, run.stderr.toString())
  } catch (error) {
    return errorMessage(error)
  }
}

async function probeAsync(argv: string[]): Promise<string | null> {
  try {
    const run = Bun.spawn(argv, {
      env: { PATH: SYSTEM_PATH },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      timeout: PROBE_TIMEOUT_MS,
    })
    const [stderr, exitCode] = await Promise.all([new Response(run.stderr).text(), run.exited])
    return complaint(exitCode, run.signalCode, stderr)
  } catch (error) {
    return errorMessage(error)
  }
}

function complaint(exitCode: number | null, signal: unknown, stderr: string): string | null {
  if (exitCode === 0) return null
  return stderr.trim().split("\n")[0] || `exit code ${exitCode ?? String(signal)}`
}
