import { scanOptions } from "../options.ts"
import { allow, approve, type Verdict } from "../verdict.ts"
import { inspectFormatVerdict } from "./docker-format.ts"
import { type Pflags, type ProgramRule, pflag } from "./program.ts"

/**
 * helm and docker by their cobra/pflag grammars: long flags exact, shorthands grouped. Flags that
 * pick another endpoint, identity or config (`--kube-token`, `-H tcp://…`) ask: the allowlist
 * covers the configured cluster and daemon only. A read subcommand runs with the flags it is
 * listed with; any other flag asks.
 */
const HELM_GLOBAL: Pflags = {
  shortValue: "n",
  short: "h",
  long: ["debug", "kube-insecure-skip-tls-verify", "help"],
  longValue: [
    "burst-limit",
    "kube-apiserver",
    "kube-as-group",
    "kube-as-user",
    "kube-ca-file",
    "kube-context",
    "kube-tls-server-name",
    "kube-token",
    "kubeconfig",
    "namespace",
    "qps",
    "registry-config",
    "repository-cache",
    "repository-config",
    "content-cache",
  ],
}
const HELM_SAFE_GLOBAL = new Set(["-n", "--namespace", "--debug", "-h", "--help", "--burst-limit", "--qps"])

const HELM_LIST: Pflags = {
  short: "aAdrq",
  shortValue: "fmol",
  long: [
    "all",
    "all-namespaces",
    "date",
    "deployed",
    "failed",
    "no-headers",
    "pending",
    "reverse",
    "short",
  ].concat(["superseded", "uninstalled", "uninstalling"]),
  longValue: ["filter", "max", "offset", "output", "selector", "time-format"],
}
const HELM_READ: Record<string, Pflags> = {
  list: HELM_LIST,
  ls: HELM_LIST,
  status: { shortValue: "o", long: ["show-desc", "show-resources"], longValue: ["output", "revision"] },
  history: { shortValue: "o", longValue: ["max", "output"] },
  hist: { shortValue: "o", longValue: ["max", "output"] },
  version: { long: ["short"], longValue: ["template"] },
}
/** `get manifest`/`get all` print rendered Secret objects with their data. */
const HELM_GET: Record<string, Pflags> = {
  values: { short: "a", shortValue: "o", long: ["all"], longValue: ["output", "revision"] },
  notes: { longValue: ["revision"] },
  hooks: { longValue: ["revision"] },
  metadata: { shortValue: "o", longValue: ["output", "revision"] },
}

function classifyHelm(args: readonly string[]): Verdict {
  const all = [HELM_GLOBAL, ...Object.values(HELM_READ), ...Object.values(HELM_GET)]
  const first = scanOptions(args, pflag(...all))
  const [sub, action] = first.ok ? first.operands : []
  if (sub === undefined) return approve("helm: not a read-only subcommand with known flags")
  const flags = sub === "get" ? own(HELM_GET, action) : own(HELM_READ, sub)
  const what = sub === "get" ? `helm get ${action ?? ""}` : `helm ${sub}`
  if (!flags) return approve(`${what} is not on the read-only allowlist`)
  const scan = scanOptions(args, pflag(HELM_GLOBAL, flags))
  if (!scan.ok) return approve(`${what}: ${scan.reason}`)
  const global = scan.options.find((o) => isHelmGlobal(o.name) && !HELM_SAFE_GLOBAL.has(o.name))
  if (global) return approve(`helm ${global.name} changes the target cluster or credentials`)
  return allow(`${what} is read-only`)
}

function isHelmGlobal(name: string): boolean {
  return (
    name === "-n" ||
    name === "-h" ||
    [...(HELM_GLOBAL.long ?? []), ...(HELM_GLOBAL.longValue ?? [])].includes(name.slice(2))
  )
}

const DOCKER_GLOBAL: Pflags = {
  shortValue: "cHl",
  short: "Dv",
  long: ["debug", "tls", "tlsverify", "version", "help"],
  longValue: ["config", "context", "host", "log-level", "tlscacert", "tlscert", "tlskey"],
}
const DOCKER_SAFE_GLOBAL = new Set(["-D", "--debug", "-l", "--log-level", "--help"])

const PS: Pflags = {
  short: "alqs",
  shortValue: "fn",
  long: ["all", "latest", "no-trunc", "quiet", "size"],
  longValue: ["filter", "format", "last"],
}
const INSPECT: Pflags = { short: "s", shortValue: "f", long: ["size"], longValue: ["format", "type"] }
const LOGS: Pflags = {
  short: "ft",
  shortValue: "n",
  long: ["details", "follow", "timestamps"],
  longValue: ["since", "tail", "until"],
}
const IMAGES: Pflags = {
  short: "aq",
  shortValue: "f",
  long: ["all", "digests", "no-trunc", "quiet", "tree"],
  longValue: ["filter", "format"],
}
const FORMAT: Pflags = { shortValue: "f", longValue: ["format"] }
const STATS: Pflags = { short: "a", long: ["all", "no-stream", "no-trunc"], longValue: ["format"] }
const LS: Pflags = {
  short: "q",
  shortValue: "f",
  long: ["quiet", "no-trunc"],
  longValue: ["filter", "format"],
}
const NONE: Pflags = {}

const CONTAINER: Record<string, Pflags> = {
  ls: PS,
  list: PS,
  ps: PS,
  inspect: INSPECT,
  logs: LOGS,
  port: NONE,
  stats: STATS,
  top: NONE,
}
const DOCKER_READ: Record<string, Pflags> = {
  ps: PS,
  inspect: INSPECT,
  logs: LOGS,
  images: IMAGES,
  version: FORMAT,
  info: FORMAT,
  port: NONE,
  stats: STATS,
  top: NONE,
}
/** Management commands: `docker image ls`, `docker system df`. */
const DOCKER_GROUPS: Record<string, Record<string, Pflags>> = {
  container: CONTAINER,
  image: {
    ls: IMAGES,
    list: IMAGES,
    inspect: INSPECT,
    history: { short: "Hq", long: ["human", "no-trunc", "quiet"], longValue: ["format"] },
  },
  network: {
    ls: LS,
    list: LS,
    inspect: { short: "v", shortValue: "f", long: ["verbose"], longValue: ["format"] },
  },
  volume: { ls: LS, list: LS, inspect: FORMAT },
  system: { df: { short: "v", long: ["verbose"], longValue: ["format"] }, info: FORMAT },
}

function classifyDocker(args: readonly string[]): Verdict {
  // docker reads its global flags up to the first word that is not one.
  const global = scanOptions(args, { ...pflag(DOCKER_GLOBAL), stopAtOperand: true })
  if (!global.ok) return approve(`docker: ${global.reason}`)
  const risky = global.options.find((o) => !DOCKER_SAFE_GLOBAL.has(o.name))
  if (risky) return approve(`docker ${risky.name} changes the daemon, context or credentials`)
  const [sub, action, ...rest] = global.operands
  if (sub === undefined) return approve("docker without a subcommand")
  const nested = own(DOCKER_GROUPS, sub)
  const flags = nested ? own(nested, action) : own(DOCKER_READ, sub)
  const what = nested ? `docker ${sub} ${action ?? ""}` : `docker ${sub}`
  if (!flags) return approve(`${what} is not on the read-only allowlist`)
  const scan = scanOptions(nested ? rest : [action, ...rest].filter((a) => a !== undefined), pflag(flags))
  if (!scan.ok) return approve(`${what}: ${scan.reason}`)
  // `docker top C ps-options` hands the options to ps on the host.
  const isTop = (nested ? action : sub) === "top"
  if (isTop && scan.operands.length > 1) return approve("docker top with ps options")
  const format = scan.options.findLast((o) => o.name === "-f" || o.name === "--format")?.value
  if ((nested ? action : sub) === "inspect" && format !== undefined) return inspectFormatVerdict(format)
  return allow(`${what} is read-only`)
}

/** A table entry for a model-chosen word (`constructor` is not a subcommand). */
function own<T>(table: Record<string, T>, key: string | undefined): T | undefined {
  return key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined
}

export const HELM_DOCKER: Record<string, ProgramRule> = {
  helm: {
    classify: classifyHelm,
    inputChoosesSubcommand: true,
    kubeconfigFlag: true,
    examples: {
      allow: ["helm history x", "helm -n x list -A", "helm get values x --revision 2"],
      ask: ["helm upgrade x ./c", "helm --kube-context=prod list", "helm get manifest x"],
      deny: ["helm get values x --kubeconfig /root/.ssh/id_rsa"],
    },
  },
  docker: {
    classify: classifyDocker,
    writes: (args) => args.includes("cp"),
    inputChoosesSubcommand: true,
    examples: {
      allow: ["docker ps -a --format '{{.Names}}'", "docker container ls -q"],
      ask: ["docker exec c ls", "docker -H tcp://x ps"],
      deny: ["docker cp c:/x /etc/x"],
    },
  },
}
