import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs"
import { posix } from "node:path"
import { MORE_CREDENTIAL_PATTERNS } from "./credential-locations.ts"
import { credentialIdentities, type Identities } from "./identities.ts"

/** Where a command runs and which extra paths (dupin's config, KUBECONFIG entries) it never reads. */
export type PathContext = { cwd: string; protectedPaths?: readonly string[] }

/**
 * Files whose content is a credential. Reading them is refused even with approval: a model that
 * was talked into it (prompt injection in a log line, a pod annotation) must not get them.
 * Matched on the path as written, normalised, and resolved the way the kernel resolves it.
 */
const CREDENTIAL_PATTERNS: Array<[RegExp, string]> = [
  [/(^|\/)etc\/g?shadow-?$/, "password hashes"],
  [/(^|\/)var\/backups\/g?shadow\.bak$/, "password hashes"],
  [/(^|\/)etc\/security\/opasswd$/, "password hashes"],
  [/(^|\/)etc\/ssh\/ssh_host_[^/]*_key$/, "SSH host keys"],
  [/(^|\/)var\/lib\/etcd(\/|$)/, "the cluster's store, secrets included"],
  [/(^|\/)etc\/sudoers(\.d)?(\/|$)/, "sudo rules"],
  [/(^|\/)etc\/dupin(\/|$)/, "dupin's own configuration and keys"],
  [/(^|\/)\.kube(\/|$)/, "a kubeconfig"],
  [
    /(^|\/)etc\/kubernetes\/(admin|kubelet|controller-manager|scheduler|super-admin|bootstrap-kubelet)\.conf$/,
    "a kubeconfig",
  ],
  [/(^|\/)etc\/kubernetes\/pki(\/|$)/, "cluster private keys"],
  [/(^|\/)var\/lib\/kubelet\/(pki|kubeconfig)/, "kubelet credentials"],
  [/(^|\/)var\/lib\/kubelet\/pods\/[^/]+\/volumes\/kubernetes\.io~(secret|projected)(\/|$)/, "pod secrets"],
  [/(^|\/)etc\/rancher\/k3s\/k3s\.yaml$/, "a kubeconfig"],
  [/(^|\/)var\/lib\/rancher\/k3s\/server\/(token|cred|tls)(\/|$)/, "cluster credentials"],
  [/(^|\/)etc\/ssl\/private(\/|$)/, "private keys"],
  [/(^|\/)(var\/)?run\/secrets(\/|$)/, "mounted secrets and service-account tokens"],
  // Container runtimes keep each container's spec, its environment (injected secrets) included.
  [/(^|\/)var\/lib\/docker\/containers\/[^/]+\/config\.v2\.json$/, "a container's environment"],
  [
    /(^|\/)run\/containerd\/io\.containerd\.runtime\.v2\.task\/[^/]+\/[^/]+\/config\.json$/,
    "a container's environment",
  ],
  [/(^|\/)var\/lib\/kubelet\/pods\/[^/]+\/volumes\/kubernetes\.io~csi(\/|$)/, "pod secrets (CSI)"],
  [/(^|\/)\.ssh(\/|$)/, "SSH keys"],
  [/(^|\/)\.aws(\/|$)/, "cloud credentials"],
  [/(^|\/)\.azure(\/|$)/, "cloud credentials"],
  [/(^|\/)\.config\/gcloud(\/|$)/, "cloud credentials"],
  [/(^|\/)\.docker\/config\.json$/, "registry credentials"],
  [
    /(^|\/)\.(netrc|git-credentials|pgpass|my\.cnf|vault-token|npmrc|pypirc|s3cfg|boto|dockercfg)$/,
    "credentials",
  ],
  [/(^|\/)\.config\/(gh\/hosts\.yml|helm\/repositories\.yaml)$/, "credentials"],
  [/(^|\/)\.terraform\.d\/credentials\.tfrc\.json$/, "credentials"],
  [/(^|\/)\.gnupg(\/|$)/, "private keys"],
  [/(^|\/)proc\/[^/]+\/(task\/[^/]+\/)?environ$/, "a process environment (provider keys)"],
  [
    /(^|\/)proc\/[^/]+\/(task\/[^/]+\/)?(mem|root|cwd|fd|map_files)(\/|$)/,
    "another process's memory or files",
  ],
  [/(^|\/)(dev\/(k?mem|port)|proc\/kcore)$/, "physical or kernel memory"],
  ...MORE_CREDENTIAL_PATTERNS,
]

/**
 * Names that mark a credential wherever the file is. A bare word (`grep id_rsa`) is a file only
 * when it exists, so these apply to paths with a slash and to files that exist.
 */
const CREDENTIAL_NAMES: Array<[RegExp, string]> = [
  [/(^|\/)[^/]*kubeconfig[^/]*$/i, "a kubeconfig"],
  [/(^|\/)[^/]*\.(pem|key|p12|pfx|jks)$/i, "a private key"],
  [/(^|\/)id_[^/]*$/, "a private key"],
]

/**
 * Why `arg` names a credential file, or undefined. Looks inside `--opt=value`, `k=v`, `pod:/path`,
 * attached short-option values (`-uf/etc/dupin/env`) and `@file` response files too.
 */
export function credentialReason(
  arg: string,
  context: PathContext,
  guards: Guards = guardsFor(context),
): string | undefined {
  return checkPath(arg, context, guards).deny
}

/**
 * What naming `arg` means: `deny`, it reaches a credential (refused even with approval); `ask`,
 * it reaches a file dupin cannot vet, one with other names (hard links) that could be a
 * credential's (a human decides).
 */
export function checkPath(
  arg: string,
  context: PathContext,
  guards: Guards = guardsFor(context),
): { deny?: string; ask?: string } {
  if (arg.split(/[,:]/).length > MAX_LIST_ITEMS + 1 && arg.includes("/"))
    return { deny: `${arg.slice(0, 40)}… lists more paths than dupin checks` }
  let ask: string | undefined
  for (const candidate of pathCandidates(arg)) {
    const found: Found = {}
    const reason = pathReason(candidate, guards, found)
    if (reason) return { deny: `${candidate} ${reason}` }
    if (found.links !== undefined && found.links > 1)
      ask ??= `${candidate} has ${found.links} names (hard links); one may be a credential dupin does not know`
  }
  return ask === undefined ? {} : { ask }
}

type Found = { links?: number }

function pathReason(candidate: string, guards: Guards, found: Found = {}): string | undefined {
  const absolute = posix.resolve(guards.cwd, candidate)
  for (const form of [candidate, posix.normalize(candidate), absolute]) {
    const what = patternMatch(form) ?? protectedMatch(form, guards.forms)
    if (what) return `holds ${what}`
  }
  const resolved = resolveLikeKernel(candidate, guards.cwd, guards.identities)
  if (!resolved.ok) return `cannot be resolved safely (${resolved.reason})`
  if (resolved.sameAs) {
    const held = patternMatch(resolved.sameAs) ?? nameMatch(resolved.sameAs) ?? "a credential"
    // Worded like the other reasons: the policy's kubeconfig-flag exception reads the ending.
    return `reaches ${resolved.sameAs} under another name (a hard link or bind mount, at ${resolved.path}), which holds ${held}`
  }
  found.links = resolved.links
  // A raw disk holds every file's blocks: reading it walks around every path check.
  if (resolved.blockDevice)
    return `is a block device (${resolved.path}): raw disk reads bypass file permissions`
  const byName =
    candidate.includes("/") || resolved.exists
      ? (nameMatch(resolved.path) ?? nameMatch(candidate))
      : undefined
  const what = patternMatch(resolved.path) ?? protectedMatch(resolved.path, guards.forms) ?? byName
  return what ? `resolves to ${resolved.path}, which holds ${what}` : undefined
}

function patternMatch(path: string): string | undefined {
  return CREDENTIAL_PATTERNS.find(([pattern]) => pattern.test(path))?.[1]
}

function nameMatch(path: string): string | undefined {
  return CREDENTIAL_NAMES.find(([pattern]) => pattern.test(path))?.[1]
}

/** Built-in locations that may themselves be symlinks: their real targets are guarded too. */
const LINKED_ROOTS = ["/etc/dupin", "/etc/shadow", "/etc/gshadow", "/run/secrets", "/var/run/secrets"]

/** What every check of one command line shares: the real working directory, the guarded paths. */
export type Guards = { cwd: string; forms: readonly string[]; identities: Identities }

/**
 * Every guarded path in its lexical and its real form (a guarded folder may be a symlink), and
 * the working directory with its symlinks resolved. Computed once per command line.
 */
export function guardsFor(context: PathContext): Guards {
  const forms: string[] = []
  for (const path of [...LINKED_ROOTS, ...(context.protectedPaths ?? [])]) {
    if (!path) continue
    forms.push(posix.resolve(context.cwd, path))
    // Not there (yet): the lexical form still guards it.
    if (existsSync(path)) forms.push(realPath(path))
  }
  return { cwd: realPath(context.cwd), forms, identities: credentialIdentities(context.protectedPaths ?? []) }
}

function protectedMatch(path: string, guards: readonly string[]): string | undefined {
  const hit = guards.some((form) => path === form || path.startsWith(`${form}/`))
  return hit ? "a file dupin protects (its configuration, keys or a kubeconfig)" : undefined
}

/** Items of a comma or colon list checked as paths; a longer list is refused whole. */
const MAX_LIST_ITEMS = 64

function pathCandidates(arg: string): string[] {
  const pieces = new Set([arg])
  const eq = arg.indexOf("=")
  if (eq !== -1) pieces.add(arg.slice(eq + 1))
  // `pod:/etc/shadow` (kubectl cp, docker cp) and `file:///x` URLs.
  const colon = arg.indexOf(":")
  if (colon !== -1) pieces.add(arg.slice(colon + 1).replace(/^\/\/(?=\/)/, ""))
  const slash = arg.indexOf("/")
  if (slash > 0) pieces.add(arg.slice(slash))
  if (arg.startsWith("@")) pieces.add(arg.slice(1))
  // Lists of files (`-f a.yaml,b.yaml`, `--kubeconfig=a:b`): each item is a path of its own.
  const items = arg.slice(eq + 1).split(/[,:]/)
  if (items.length > 1) for (const item of items.slice(0, MAX_LIST_ITEMS)) pieces.add(item)
  // A short-option group may end in an attached file name (`-uf.env`, `-xfkey.pem`).
  if (/^-[^-]/.test(arg) && arg.length <= 256) {
    for (let i = 2; i < arg.length; i++) pieces.add(arg.slice(i))
  }
  return [...pieces].filter((p) => p.length > 0)
}

type Resolution =
  | {
      ok: true
      path: string
      exists: boolean
      blockDevice?: boolean
      /** The credential this path reaches by identity (`path` is then where the walk stopped). */
      sameAs?: string
      /** How many names the file has (hard links); only for a file that exists. */
      links?: number
    }
  | { ok: false; reason: string }

const MAX_LINKS = 40

/**
 * `path` resolved component by component as the kernel does: a symlink is followed before the
 * `..` after it is applied, so `/proc/net/../../1/environ` is `/proc/1/environ` (lexical
 * normalisation would say `/1/environ`). A component that does not exist (or a name too long, a
 * loop) ends the walk: the program fails there too. Any other error (no permission: `sudo` could
 * pass where dupin cannot look) makes the result uncertain.
 */
export function resolveLikeKernel(path: string, realCwd: string, identities?: Identities): Resolution {
  let stack = path.startsWith("/") ? [] : splitPath(realCwd)
  const pending = splitPath(path)
  let links = 0
  let blockDevice = false
  let names = 1
  while (pending.length > 0) {
    const part = pending.shift()!
    if (part === ".") continue
    if (part === "..") {
      stack.pop()
      continue
    }
    stack.push(part)
    const full = `/${stack.join("/")}`
    // A magic /proc link (fd, cwd, root) leads wherever the other process is: judge it here.
    const magic = patternMatch(full)
    if (magic) return { ok: true, path: full, exists: true }
    let isLink: boolean
    try {
      // No exception for the common "not there": a command line may name thousands of words.
      const stat = lstatSync(full, { bigint: true, throwIfNoEntry: false })
      if (stat === undefined) return { ok: true, path: joinRest(full, pending), exists: false }
      isLink = stat.isSymbolicLink()
      blockDevice = stat.isBlockDevice()
      names = stat.isFile() ? Number(stat.nlink) : 1
      // Every component, not only the last: a bind-mounted credential folder is a folder on the way.
      const sameAs = identities?.get(`${stat.dev}:${stat.ino}`)
      if (sameAs !== undefined) return { ok: true, path: full, exists: true, sameAs }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // The program's own open fails the same way, for any user: nothing is read.
      if (code === "ENOENT" || code === "ENOTDIR" || code === "ENAMETOOLONG" || code === "ELOOP")
        return { ok: true, path: joinRest(full, pending), exists: false }
      return { ok: false, reason: `${full}: ${code ?? "error"}` }
    }
    if (!isLink) continue
    // The kernel gives up with ELOOP at the same count: nothing is read.
    if (++links > MAX_LINKS) return { ok: true, path: full, exists: false }
    let target: string
    try {
      target = readlinkSync(full)
    } catch (error) {
      return { ok: false, reason: `${full}: ${(error as NodeJS.ErrnoException).code ?? "error"}` }
    }
    stack.pop()
    if (target.startsWith("/")) stack = []
    pending.unshift(...splitPath(target))
  }
  return { ok: true, path: `/${stack.join("/")}`, exists: true, blockDevice, links: names }
}

function splitPath(path: string): string[] {
  return path.split("/").filter((p) => p.length > 0)
}

function joinRest(full: string, pending: readonly string[]): string {
  return posix.join(full, ...pending.filter((p) => p !== "." && p !== ".."))
}

function realPath(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return posix.resolve(path)
  }
}

/**
 * Whether `arg` (or the path inside `--opt=path`) resolves under /etc, relative to `cwd` and
 * through symlinks: writing there changes how the host authenticates, resolves names and starts
 * services. A path that cannot be resolved safely counts as under /etc.
 */
export function isUnderEtc(arg: string, cwd: string): boolean {
  const etc = etcIdentity()
  for (const candidate of pathCandidates(arg)) {
    const resolved = resolveLikeKernel(candidate, realPath(cwd), etc)
    if (!resolved.ok) return true
    // /etc under another name: a bind mount of it, or a second name (hard link) of a file that
    // may be one of its files; writing through either changes /etc.
    if (resolved.sameAs !== undefined || (resolved.links ?? 1) > 1) return true
    for (const path of [posix.resolve(cwd, candidate), resolved.path]) {
      if (path === "/etc" || path.startsWith("/etc/")) return true
    }
  }
  return false
}

function etcIdentity(): Identities {
  try {
    const stat = lstatSync("/etc", { bigint: true })
    return new Map([[`${stat.dev}:${stat.ino}`, "/etc"]])
  } catch {
    return new Map()
  }
}
