/**
 * What a tool sees (issue 18 class 3, issue 19 item 2). Two views of the host, each served by one
 * long-lived sandbox:
 *
 * - `read-only`: calls that run without a human's approval. The root is read-only; dupin's HOME
 *   is an empty private tmpfs with only `~/.kube` and the KUBECONFIG files bound back read-only
 *   (a private HOME closes the long tail of credential stores: shell histories, helm/podman auth,
 *   argocd, tsh…; R5); dupin's state folder (runs, spilled outputs of every conversation; R7) is
 *   hidden; `/etc/dupin`, the config and env files, `security.hidden_paths` and the custom toolset
 *   files are masked; /proc is the sandbox's own.
 * - `writable`: calls a human approved (CONTRACT §5). The root is writable wherever dupin's user
 *   may write, HOME included; the same secrets stay masked, and so do the credential stores of
 *   the declared table below, which no approval opens.
 */
import { existsSync, realpathSync, statSync } from "node:fs"
import { delimiter, isAbsolute, join } from "node:path"
import type { BwrapPlan } from "./bwrap.ts"
import type { ContainmentState } from "./index.ts"

export type SandboxView = "read-only" | "writable"

/**
 * Credential stores under HOME that stay masked in the approved-writable view, each with why. The
 * read-only view needs no list: its HOME is private. (`~/.kube` is not here: approved kubectl
 * needs it; the bash policy refuses naming it.)
 */
export const APPROVED_HOME_MASKS: ReadonlyArray<{ path: string; reason: string }> = [
  { path: ".ssh", reason: "SSH private keys" },
  { path: ".aws", reason: "AWS access keys" },
  { path: ".azure", reason: "Azure tokens" },
  { path: ".config/gcloud", reason: "Google Cloud credentials" },
  { path: ".gnupg", reason: "GPG private keys" },
  { path: ".docker", reason: "registry auth (config.json)" },
  { path: ".config/containers", reason: "podman/skopeo registry auth" },
  { path: ".config/helm/registry", reason: "helm OCI registry logins" },
  { path: ".netrc", reason: "passwords for hosts" },
  { path: ".git-credentials", reason: "git passwords" },
  { path: ".pgpass", reason: "PostgreSQL passwords" },
  { path: ".vault-token", reason: "Vault token" },
  { path: ".bash_history", reason: "shell history (exported keys; R5)" },
  { path: ".zsh_history", reason: "shell history" },
  { path: ".psql_history", reason: "psql history" },
  { path: ".mysql_history", reason: "mysql history" },
  { path: ".python_history", reason: "python history" },
]

/** System credential stores hidden in both views (R5), each with why. */
export const SYSTEM_MASKS: ReadonlyArray<{ path: string; reason: string }> = [
  { path: "/run/credentials", reason: "systemd LoadCredential= secrets" },
  { path: "/var/lib/containerd", reason: "every container's spec with its resolved environment" },
  { path: "/var/lib/docker/containers", reason: "container configs and swarm secrets" },
  { path: "/var/lib/k0s/pki", reason: "k0s admin credentials" },
  { path: "/var/snap/microk8s/current/credentials", reason: "microk8s client config" },
]

/** The bwrap plan of one view; `area` is the view's writable run area (runs' temp dirs live there). */
export function viewPlan(
  containment: ContainmentState,
  view: SandboxView,
  area: string,
  env: Record<string, string>,
  extraReexpose: string[],
): BwrapPlan {
  const home = privateHomeOf(containment)
  const approvedMasks =
    view === "writable" && home ? APPROVED_HOME_MASKS.map((m) => join(home, m.path)).filter(existsSync) : []
  const system = SYSTEM_MASKS.map((m) => m.path).filter(existsSync)
  const dirs = [...containment.secretDirs, ...system, ...approvedMasks.filter(isDir)]
  const files = [...containment.secretFiles, ...approvedMasks.filter((p) => !isDir(p))]
  return {
    masks: { dirs, files },
    reexpose: [
      ...reexposed(env, containment, view === "read-only" ? home : null),
      ...underHidden(extraReexpose, containment, view === "read-only" ? home : null),
    ],
    tempDir: area,
    runsDir: containment.runsDir,
    writable: containment.writable,
    writableRoot: view === "writable",
    privateHome: view === "read-only" ? home : null,
    cwd: undefined,
    root: containment.root,
    flavor: containment.flavor,
  }
}

/** dupin's HOME when it is a folder that can be masked (not `/`, not missing). */
export function privateHomeOf(containment: ContainmentState): string | null {
  const home = containment.home
  if (!home || home === "/" || !existsSync(home)) return null
  return realpathSync(home)
}

/**
 * Files the tools need from masked places, bound back read-only: KUBECONFIG files (the bastion
 * guide keeps one in /etc/dupin) and, with a private HOME, `~/.kube` (kubectl's default config).
 * dupin's own secret files never are.
 */
export function reexposed(
  env: Record<string, string>,
  containment: ContainmentState,
  home: string | null,
): string[] {
  const named = (env.KUBECONFIG ?? "").split(delimiter)
  const kube = home ? [join(home, ".kube")] : []
  return underHidden([...kube, ...named], containment, home)
}

/** The paths (resolved) that exist and lie in a masked folder, so need binding back; never a secret file. */
function underHidden(paths: string[], containment: ContainmentState, home: string | null): string[] {
  const hidden = [...containment.secretDirs, ...(home ? [home] : [])]
  const found = paths.filter((p) => isAbsolute(p) && existsSync(p)).map((p) => realpathSync(p))
  return [...new Set(found)]
    .filter((p) => hidden.some((dir) => p.startsWith(`${dir}/`)))
    .filter((p) => !containment.secretFiles.includes(p))
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
