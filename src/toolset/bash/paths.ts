import { realpathSync } from "node:fs"
import { dirname, posix } from "node:path"

/**
 * Files whose content is a credential. Reading them is refused even with approval: a model that
 * was talked into it (prompt injection in a log line, a pod annotation) must not get them.
 * Matched on the whole path and on every path-like piece of an argument (`--from-file=/x`).
 */
const CREDENTIAL_PATTERNS: Array<[RegExp, string]> = [
  [/(^|\/)etc\/g?shadow-?$/, "password hashes"],
  [/(^|\/)etc\/sudoers(\.d)?(\/|$)/, "sudo rules"],
  [/(^|\/)\.kube\/(config|.*\.ya?ml$)/, "a kubeconfig"],
  [/(^|\/)[^/]*kubeconfig[^/]*$/i, "a kubeconfig"],
  [/(^|\/)etc\/kubernetes\/(admin|kubelet|controller-manager|scheduler|super-admin)\.conf$/, "a kubeconfig"],
  [/(^|\/)etc\/kubernetes\/pki(\/|$)/, "cluster private keys"],
  [/(^|\/)var\/lib\/kubelet\/(pki|kubeconfig)/, "kubelet credentials"],
  [/(^|\/)(var\/)?run\/secrets(\/|$)/, "mounted secrets and service-account tokens"],
  [/(^|\/)\.ssh(\/|$)/, "SSH keys"],
  [/(^|\/)\.aws\/(credentials|config)$/, "cloud credentials"],
  [/(^|\/)\.azure(\/|$)/, "cloud credentials"],
  [/(^|\/)\.config\/gcloud(\/|$)/, "cloud credentials"],
  [/(^|\/)\.docker\/config\.json$/, "registry credentials"],
  [/(^|\/)\.(netrc|git-credentials|pgpass|my\.cnf|vault-token)$/, "credentials"],
  [/(^|\/)\.gnupg(\/|$)/, "private keys"],
  [/(^|\/)proc\/[^/]+\/(task\/[^/]+\/)?environ$/, "a process environment (provider keys)"],
  [/(^|\/)proc\/[^/]+\/(mem|root|cwd|fd|map_files)(\/|$)/, "another process's memory or files"],
  [/\/[^/]*\.(pem|key|p12|pfx|jks)$/i, "a private key"],
]

/** Why `arg` names a credential file, or undefined. Looks inside `--opt=value` and `k=v` too. */
export function credentialReason(arg: string): string | undefined {
  for (const candidate of pathCandidates(arg)) {
    const normalized = posix.normalize(candidate)
    for (const [pattern, what] of CREDENTIAL_PATTERNS) {
      if (pattern.test(normalized) || pattern.test(candidate)) return `${candidate} holds ${what}`
    }
  }
  return undefined
}

function pathCandidates(arg: string): string[] {
  const pieces = [arg]
  const eq = arg.indexOf("=")
  if (eq !== -1) pieces.push(arg.slice(eq + 1))
  // `pod:/etc/shadow` (kubectl cp, docker cp) and `file:///x` URLs.
  const colon = arg.indexOf(":")
  if (colon !== -1) pieces.push(arg.slice(colon + 1).replace(/^\/\/(?=\/)/, ""))
  return pieces.filter((p) => p.length > 0)
}

/**
 * Whether `arg` (or the path inside `--opt=path`) resolves under /etc, relative to `cwd` and
 * through symlinks of the part that exists: writing there changes how the host authenticates,
 * resolves names and starts services.
 */
export function isUnderEtc(arg: string, cwd: string): boolean {
  for (const candidate of pathCandidates(arg)) {
    const absolute = posix.resolve(cwd, candidate)
    for (const path of [absolute, realExistingPrefix(absolute)]) {
      if (path === "/etc" || path.startsWith("/etc/")) return true
    }
  }
  return false
}

/** `path` with its longest existing prefix replaced by its real path (symlinks resolved). */
function realExistingPrefix(path: string): string {
  let head = path
  let tail = ""
  for (;;) {
    try {
      const real = realpathSync(head)
      return tail ? posix.join(real, tail) : real
    } catch {
      const parent = dirname(head)
      if (parent === head) return path
      tail = tail ? posix.join(head.slice(parent.length + 1), tail) : head.slice(parent.length + 1)
      head = parent
    }
  }
}
