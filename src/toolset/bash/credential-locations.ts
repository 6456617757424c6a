import { readFileSync, statSync } from "node:fs"
import { posix } from "node:path"

/**
 * Credential stores beyond the classic ones (finding R5): shell and client histories (a key
 * exported once stays in `~/.bash_history`), registry and cluster logins of the tools a bastion
 * carries, container runtimes' stores. The sandbox's private HOME is the first line; this list
 * is the second, and holds approved runs too.
 */
export const MORE_CREDENTIAL_PATTERNS: Array<[RegExp, string]> = [
  [/(^|\/)\.[\w.-]*_history$/, "a shell or client history (exported keys, passwords typed)"],
  [/(^|\/)\.(history|histfile|viminfo|lesshst|dbshell|rediscli_history)$/, "a shell or client history"],
  [/(^|\/)\.local\/share\/fish\/fish_history$/, "a shell history"],
  [/(^|\/)\.config\/helm\/registry(\/|$)/, "registry credentials"],
  [/(^|\/)containers\/(\d+\/)?auth\.json$/, "registry credentials (podman, skopeo, buildah)"],
  [/(^|\/)\.config\/containers\/(auth\.json|containers\.conf)$/, "registry credentials"],
  [/(^|\/)(\.argocd|\.config\/argocd)(\/|$)/, "Argo CD credentials"],
  [/(^|\/)\.tsh(\/|$)/, "Teleport keys"],
  [/(^|\/)\.rancher(\/|$)/, "Rancher credentials"],
  [/(^|\/)\.talos(\/|$)/, "Talos credentials"],
  [/(^|\/)etc\/rancher\/(k3s|rke2)\/(k3s|rke2)\.yaml$/, "a kubeconfig"],
  [
    /(^|\/)var\/lib\/rancher\/(k3s|rke2)\/(server|agent)\/(token|cred|tls|.*\.kubeconfig)(\/|$)/,
    "cluster credentials",
  ],
  [/(^|\/)var\/snap\/microk8s\/[^/]+\/credentials(\/|$)/, "cluster credentials"],
  [/(^|\/)var\/lib\/k0s\/(pki|.*\.conf$)/, "cluster credentials"],
  [/(^|\/)var\/lib\/docker\/containers\/[^/]+\/mounts\/secrets(\/|$)/, "swarm secrets"],
  [/(^|\/)var\/lib\/docker\/swarm(\/|$)/, "swarm keys and secrets"],
  [
    /(^|\/)var\/lib\/containerd\/io\.containerd\.metadata\.v1\.bolt(\/|$)/,
    "every container's spec and environment",
  ],
  [/(^|\/)(var\/)?run\/credentials(\/|$)/, "systemd service credentials"],
  [/(^|\/)etc\/default\/dupin$/, "dupin's environment file"],
  [/(^|\/)\.terraformrc$/, "credentials"],
  [
    /(^|\/)\.config\/(openstack\/clouds\.yaml|rclone\/rclone\.conf|doctl\/config\.yaml|glab-cli\/config\.yml|hub)$/,
    "credentials",
  ],
  [
    /(^|\/)(\.m2\/settings\.xml|\.cargo\/credentials(\.toml)?|\.gem\/credentials|\.yarnrc\.yml)$/,
    "credentials",
  ],
]

/** Fields of a kubeconfig that name a file holding a credential. */
const KUBECONFIG_FILES = /^\s*-?\s*["']?(tokenFile|client-key|token-file)["']?\s*:\s*["']?([^"'\s#]+)/gm
const MAX_KUBECONFIG = 1024 * 1024

/**
 * The files a kubeconfig names for its credentials (`tokenFile`, `client-key`), resolved against
 * the kubeconfig's folder as kubectl does: protected like the kubeconfig itself.
 */
export function kubeconfigCredentialFiles(kubeconfig: string): string[] {
  try {
    if (statSync(kubeconfig).size > MAX_KUBECONFIG) return []
    const text = readFileSync(kubeconfig, "utf8")
    const dir = posix.dirname(posix.resolve(kubeconfig))
    return [...text.matchAll(KUBECONFIG_FILES)].map((m) => posix.resolve(dir, m[2]!))
  } catch {
    return []
  }
}
