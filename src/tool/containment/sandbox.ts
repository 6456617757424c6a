/**
 * One contained run (a process or a whole pipeline): a private temp dir that becomes TMPDIR and
 * is removed afterwards, and the wrapper argv for each stage. Each stage gets its own sandbox;
 * they share the temp dir, as a shell pipeline would share /tmp.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, isAbsolute, join, resolve } from "node:path"
import { bwrapArgs } from "./bwrap.ts"
import type { ContainmentState } from "./index.ts"
import { prlimitArgs } from "./rlimits.ts"
import { reaperArgs, unshareArgs } from "./unshare.ts"

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
  options: { env: Record<string, string>; cwd: string | undefined },
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
          masks: { dirs: containment.secretDirs, files: containment.secretFiles },
          reexpose: reexposed(options.env.KUBECONFIG, containment),
          tempDir,
          runsDir: containment.runsDir,
          writable: containment.writable,
          cwd: options.cwd,
          root: containment.root,
          flavor: containment.flavor,
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
 * KUBECONFIG files under a masked directory (the bastion guide's /etc/dupin/kubeconfig): kubectl
 * needs them, so they are bound back read-only. dupin's own secret files never are.
 */
function reexposed(kubeconfig: string | undefined, containment: ContainmentState): string[] {
  if (!kubeconfig || containment.secretDirs.length === 0) return []
  return kubeconfig
    .split(delimiter)
    .filter((p) => isAbsolute(p) && existsSync(p))
    .map((p) => realpathSync(p))
    .filter((p) => containment.secretDirs.some((dir) => p.startsWith(`${dir}/`)))
    .filter((p) => !containment.secretFiles.includes(p))
}
