import { lstatSync, readdirSync, statSync } from "node:fs"
import { homedir } from "node:os"
import { posix } from "node:path"

/**
 * Credentials reached under another name. A hard link (`ln ~/.ssh/id_rsa /tmp/notes`) or a bind
 * mount (`mount --bind ~/.kube /mnt/cfg`) shows the same file or folder at a path that no name
 * pattern matches. The kernel knows a file by its device and inode, so the credential locations
 * that exist are recorded by that identity, and every component of a resolved path is compared.
 */
export type Identities = ReadonlyMap<string, string>

/** Credential files and folders under a home directory (the same list as the name patterns). */
const HOME_CREDENTIALS = [
  ".ssh",
  ".kube",
  ".aws",
  ".azure",
  ".gnupg",
  ".config/gcloud",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".pgpass",
  ".my.cnf",
  ".vault-token",
  ".npmrc",
  ".pypirc",
  ".s3cfg",
  ".boto",
  ".dockercfg",
  ".config/gh/hosts.yml",
  ".config/helm/repositories.yaml",
  ".terraform.d/credentials.tfrc.json",
]

const SYSTEM_CREDENTIALS = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/security/opasswd",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/dupin",
  "/etc/ssl/private",
  "/etc/kubernetes/pki",
  "/etc/kubernetes/admin.conf",
  "/etc/kubernetes/super-admin.conf",
  "/etc/kubernetes/kubelet.conf",
  "/etc/kubernetes/controller-manager.conf",
  "/etc/kubernetes/scheduler.conf",
  "/etc/rancher/k3s/k3s.yaml",
  "/var/lib/etcd",
  "/var/lib/kubelet/pki",
  "/var/lib/rancher/k3s/server/tls",
  "/run/secrets",
  "/var/run/secrets",
]

/**
 * Files inside a credential folder are recorded this deep and this many per folder (the cost is
 * per command line), so one large folder cannot use up what the others need.
 */
const MAX_DEPTH = 3
const MAX_PER_ROOT = 256
const MAX_HOMES = 64
/** kubectl's discovery caches hold thousands of files and no credential. */
const SKIPPED = new Set(["cache", "http-cache"])

/**
 * The identities (`dev:ino`) of the credential files and folders that exist: the home
 * credentials of dupin's own home, root's and every folder in /home, the system ones, SSH host
 * keys, and `extra` (dupin's config, the KUBECONFIG entries).
 */
export function credentialIdentities(extra: readonly string[]): Identities {
  const found = new Map<string, string>()
  // A bastion with thousands of users would make every command line slow: the first homes only.
  const homes = new Set([homedir(), "/root", ...children("/home").slice(0, MAX_HOMES)])
  const roots = [
    ...[...homes].flatMap((home) => HOME_CREDENTIALS.map((name) => posix.join(home, name))),
    ...SYSTEM_CREDENTIALS,
    ...children("/etc/ssh").filter((path) => /\/ssh_host_[^/]*_key$/.test(path)),
    ...extra,
  ]
  for (const root of roots) record(root, found, { left: MAX_PER_ROOT }, 0)
  return found
}

function record(path: string, found: Map<string, string>, budget: { left: number }, depth: number): void {
  if (--budget.left < 0) return
  const stat = identityOf(path)
  if (stat === undefined) return
  found.set(stat.id, path)
  // A credential kept elsewhere behind a symlink (`~/.kube/config -> /srv/admin.conf`).
  if (stat.link) {
    const target = targetIdentity(path)
    if (target) found.set(target, path)
  }
  if (!stat.directory || depth >= MAX_DEPTH) return
  for (const child of children(path)) {
    if (!SKIPPED.has(posix.basename(child))) record(child, found, budget, depth + 1)
  }
}

/** The identity of `path` itself (a symlink is not followed: its target is a root of its own). */
function identityOf(path: string): { id: string; directory: boolean; link: boolean } | undefined {
  try {
    const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false })
    return (
      stat && { id: `${stat.dev}:${stat.ino}`, directory: stat.isDirectory(), link: stat.isSymbolicLink() }
    )
  } catch {
    return undefined
  }
}

function targetIdentity(path: string): string | undefined {
  try {
    const stat = statSync(path, { bigint: true, throwIfNoEntry: false })
    return stat && `${stat.dev}:${stat.ino}`
  } catch {
    return undefined
  }
}

function children(dir: string): string[] {
  try {
    return readdirSync(dir).map((name) => posix.join(dir, name))
  } catch {
    return []
  }
}
