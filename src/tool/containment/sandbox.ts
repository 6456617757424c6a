/**
 * One contained run started with its own wrapper: a private temp dir that becomes TMPDIR and is
 * removed afterwards, and the wrapper argv for each stage. With bubblewrap, tool calls run in the
 * long-lived sandbox of their view instead (helper-sandbox.ts); this serves stdio MCP servers (one
 * long-lived process each, in the read-only view plus their `writable_paths`) and the hosts
 * without bubblewrap (unshare, prlimit).
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { isAbsolute, join, resolve } from "node:path"
import { bwrapArgs } from "./bwrap.ts"
import type { ContainmentState } from "./index.ts"
import { prlimitArgs } from "./rlimits.ts"
import { reaperArgs, unshareArgs } from "./unshare.ts"
import { viewPlan } from "./views.ts"

export type SandboxRun = {
  /** The argv to spawn for one stage; throws an ENOENT/EACCES error when the command cannot start. */
  wrap(argv: string[]): string[]
  /** The tool env with TMPDIR pointing at the private temp dir. */
  env: Record<string, string>
  /** A wrapper process stands between dupin and the tool and reports its signal death as 128+n. */
  reportsSignalsAsExitCodes: boolean
  /** Removes the temp dir; call once every stage has exited. */
  cleanup(): void
}

export function openSandbox(
  containment: ContainmentState,
  options: {
    env: Record<string, string>
    cwd: string | undefined
    writable?: readonly string[]
    /** The host's /proc, read-only, in place of a private one (a host-view run; see spawn.ts). */
    hostProc?: boolean
  },
): SandboxRun {
  const { info, programs } = containment
  if (info.level === "none" && !programs.prlimit) {
    return { wrap: (argv) => argv, env: options.env, reportsSignalsAsExitCodes: false, cleanup: () => {} }
  }
  const tempDir = mkdtempSync(join(containment.runsDir ?? realpathSync(tmpdir()), "run-"))
  const env: Record<string, string> = { ...options.env, TMPDIR: tempDir }
  // HOME is read-only in the sandbox: kubectl and helm keep their caches in the run's temp dir.
  if (info.mechanism === "bwrap") {
    env.KUBECACHEDIR ??= join(tempDir, "kube-cache")
    env.HELM_CACHE_HOME ??= join(tempDir, "helm-cache")
  }
  const limits =
    info.limits && programs.prlimit ? prlimitArgs(programs.prlimit, info.limits, info.mechanism !== null) : []
  const prefix =
    info.mechanism === "bwrap" && programs.bwrap
      ? bwrapArgs(programs.bwrap, {
          ...viewPlan(containment, "read-only", tempDir, options.env, []),
          writable: [...containment.writable, ...writableOf(options.writable ?? [], containment)],
          cwd: options.cwd,
          ...(options.hostProc ? { flavor: { ...containment.flavor, proc: "host" as const } } : {}),
        })
      : info.mechanism === "unshare" && programs.unshare && programs.sh
        ? [...unshareArgs(programs.unshare), ...reaperArgs(programs.sh)]
        : []
  return {
    wrap: (argv) => [
      ...prefix,
      ...limits,
      resolveCommand(argv[0] ?? "", env.PATH ?? "", options.cwd),
      ...argv.slice(1),
    ],
    env,
    reportsSignalsAsExitCodes: prefix.length > 0,
    cleanup: () => rmSync(tempDir, { recursive: true, force: true }),
  }
}

/**
 * The command's absolute path, found the way Bun.spawn would find it. Resolving here keeps the
 * "command not found" result of an uncontained run (bwrap would only print its own error) and
 * means the wrapper never searches a PATH.
 */
export function resolveCommand(command: string, path: string, cwd: string | undefined): string {
  const found = Bun.which(command, { PATH: path, ...(cwd ? { cwd } : {}) })
  if (found) return found
  const direct = command.includes("/") ? resolve(cwd ?? process.cwd(), command) : null
  const error = new Error(`${command}: cannot start`) as Error & { code: string }
  error.code = direct && existsSync(direct) && !statSync(direct).isDirectory() ? "EACCES" : "ENOENT"
  throw error
}

/**
 * Paths an MCP server may write (its `writable_paths`): those that exist, resolved; never one that
 * holds or lies in what is masked (a writable bind would show it again).
 */
function writableOf(paths: readonly string[], containment: ContainmentState): string[] {
  const masked = [...containment.secretDirs, ...containment.secretFiles]
  const overlaps = (p: string) =>
    masked.some((m) => p === m || p.startsWith(`${m}/`) || m.startsWith(`${p}/`))
  return paths
    .filter((p) => isAbsolute(p) && existsSync(p))
    .map((p) => realpathSync(p))
    .filter((p) => !overlaps(p))
}
