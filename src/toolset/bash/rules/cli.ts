import { allow, approve, deny, type Verdict } from "../verdict.ts"

/**
 * helm and docker: read-only subcommands run, the rest needs a human. Flags before the subcommand
 * and flags that pick another endpoint or credential (`--kube-token`, `-H tcp://…`) need a human
 * too: the allowlist covers the configured cluster and daemon only.
 */
const HELM_READ: Record<string, string[] | true> = {
  list: true,
  ls: true,
  status: true,
  history: true,
  hist: true,
  version: true,
  // `get manifest`/`get all` print rendered Secret objects with their data.
  get: ["values", "notes", "hooks", "metadata"],
}

const HELM_TARGET =
  /^--(kubeconfig|kube-context|kube-token|kube-as-user|kube-as-group|kube-apiserver|kube-ca-file|kube-tls-server-name|kube-insecure-skip-tls-verify|registry-config|repository-config|repository-cache|post-renderer|plugins?)(=|$)/

export function classifyHelm(args: readonly string[]): Verdict {
  const [sub, action] = args
  if (sub === undefined || sub.startsWith("-"))
    return approve("helm flags before the subcommand are not on the allowlist")
  const target = args.find((a) => HELM_TARGET.test(a))
  if (target) return approve(`helm ${target.split("=")[0]} changes the target cluster or runs a program`)
  const read = HELM_READ[sub]
  if (read === true) return allow(`helm ${sub} is read-only`)
  if (read && action !== undefined && read.includes(action))
    return allow(`helm ${sub} ${action} is read-only`)
  return approve(`helm ${[sub, action].filter(Boolean).join(" ")} is not on the read-only allowlist`)
}

const DOCKER_READ: Record<string, string[] | true> = {
  ps: true,
  inspect: true,
  logs: true,
  images: true,
  version: true,
  info: true,
  top: true,
  port: true,
  stats: true,
  container: ["ls", "list", "ps", "inspect", "logs", "top", "port", "stats"],
  image: ["ls", "list", "inspect", "history"],
  network: ["ls", "list", "inspect"],
  volume: ["ls", "list", "inspect"],
  system: ["df", "info"],
}

const DOCKER_TARGET = /^(-H|--host|-c|--context|--config|--tls\w*)(=|$)/

export function classifyDocker(args: readonly string[]): Verdict {
  const [sub, action] = args
  if (sub === undefined || sub.startsWith("-"))
    return approve("docker flags before the subcommand are not on the allowlist")
  const target = args.find((a) => DOCKER_TARGET.test(a))
  if (target) return approve(`docker ${target.split("=")[0]} changes the daemon or credentials`)
  if (sub === "exec") return approve("docker exec runs commands inside containers")
  const read = DOCKER_READ[sub]
  if (read === true) return allow(`docker ${sub} is read-only`)
  if (read && action !== undefined && read.includes(action))
    return allow(`docker ${sub} ${action} is read-only`)
  return approve(`docker ${[sub, action].filter(Boolean).join(" ")} is not on the read-only allowlist`)
}

/** Cloud CLIs are never allowed without approval; reading secret stores is refused outright. */
export function classifyCloud(name: string, args: readonly string[]): Verdict {
  const words = args.filter((a) => !a.startsWith("-")).join(" ")
  if (
    name === "aws" &&
    /^secretsmanager get-secret-value|^ssm get-parameters?\b.*--with-decryption/.test(
      `${words} ${args.join(" ")}`,
    )
  ) {
    return deny("reading secret values from the cloud secret store")
  }
  if (name === "az" && /^keyvault secret (show|download)/.test(words))
    return deny("reading secret values from Key Vault")
  if (name === "gcloud" && /^secrets versions access/.test(words))
    return deny("reading secret values from Secret Manager")
  return approve(`${name} commands need approval`)
}
