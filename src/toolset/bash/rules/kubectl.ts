import { type OptionSpec, type ScannedOption, scanOptions } from "../options.ts"
import { allow, approve, deny, type Verdict, worst } from "../verdict.ts"
import { sourceDeny } from "./kubectl-sources.ts"
import { type Pflags, type ProgramRule, pflag, type RuleContext } from "./program.ts"

/**
 * kubectl is read through its real flag grammar (Go pflag: long flags exact, `_` is `-`,
 * shorthands grouped, `-n=x`, flags anywhere): every global flag with its arity, so a flag's
 * value is never taken for the subcommand (`kubectl --profile none exec …`), and per read-only
 * subcommand the flags it accepts. Any other flag asks.
 */
const GLOBAL_VALUE = [
  "as",
  "as-group",
  "as-uid",
  "cache-dir",
  "certificate-authority",
  "client-certificate",
  "client-key",
  "cluster",
  "context",
  "kubeconfig",
  "kuberc",
  "log-flush-frequency",
  "namespace",
  "password",
  "profile",
  "profile-output",
  "request-timeout",
  "server",
  "tls-server-name",
  "token",
  "user",
  "username",
  "v",
  "vmodule",
  "log-backtrace-at",
  "log-dir",
  "log-file",
  "log-file-max-size",
  "stderrthreshold",
]
const GLOBAL_FLAG = [
  "disable-compression",
  "insecure-skip-tls-verify",
  "match-server-version",
  "warnings-as-errors",
  "add-dir-header",
  "alsologtostderr",
  "logtostderr",
  "one-output",
  "skip-headers",
  "skip-log-headers",
  "help",
]
/** Global flags that keep kubectl on the configured cluster, identity and files. */
const GLOBAL_SAFE = new Set([
  "-n",
  "--namespace",
  "--request-timeout",
  "--match-server-version",
  "--disable-compression",
  "--warnings-as-errors",
  "-h",
  "--help",
])

const LIST: Pflags = {
  longValue: [
    "output",
    "selector",
    "field-selector",
    "sort-by",
    "label-columns",
    "chunk-size",
    "output-watch-events",
    "template",
    "subresource",
    "raw",
    "filename",
    "kustomize",
  ],
  long: [
    "all-namespaces",
    "watch",
    "watch-only",
    "show-labels",
    "no-headers",
    "ignore-not-found",
    "recursive",
    "show-kind",
    "server-print",
    "show-managed-fields",
    "allow-missing-template-keys",
  ],
  short: "AwR",
  shortValue: "olLfk",
}

const SUBCOMMANDS: Record<string, Pflags> = {
  get: LIST,
  describe: {
    longValue: ["selector", "chunk-size", "filename", "kustomize"],
    long: ["all-namespaces", "recursive", "show-events"],
    short: "AR",
    shortValue: "lfk",
  },
  logs: {
    longValue: [
      "container",
      "since",
      "since-time",
      "tail",
      "limit-bytes",
      "max-log-requests",
      "pod-running-timeout",
      "selector",
    ],
    long: ["all-pods", "prefix", "timestamps", "ignore-errors", "follow", "previous", "all-containers"],
    short: "fp",
    shortValue: "cl",
  },
  top: {
    longValue: ["selector", "sort-by", "field-selector"],
    long: ["all-namespaces", "use-protocol-buffers", "show-capacity", "containers", "no-headers", "sum"],
    short: "A",
    shortValue: "l",
  },
  events: {
    longValue: ["for", "types", "output", "chunk-size", "template"],
    long: ["all-namespaces", "watch", "no-headers", "show-managed-fields", "allow-missing-template-keys"],
    short: "Aw",
    shortValue: "o",
  },
  explain: { longValue: ["api-version", "output"], long: ["recursive"] },
  "api-resources": {
    longValue: ["api-group", "verbs", "output", "sort-by", "categories"],
    long: ["namespaced", "no-headers", "cached"],
    shortValue: "o",
  },
  "api-versions": {},
  version: { longValue: ["output"], long: ["client"], shortValue: "o" },
  "cluster-info": {},
  auth: {
    longValue: ["subresource", "output"],
    long: ["all-namespaces", "list", "no-headers", "quiet"],
    short: "Aq",
    shortValue: "o",
  },
  config: { longValue: ["output"], long: ["no-headers", "raw", "flatten", "minify"], shortValue: "o" },
}

const GLOBAL_FLAGS: Pflags = { longValue: GLOBAL_VALUE, long: GLOBAL_FLAG, short: "h", shortValue: "nsv" }
const GLOBAL_SPEC: OptionSpec = pflag(GLOBAL_FLAGS)

const SECRET_READERS = new Set([
  "get",
  "describe",
  "edit",
  "patch",
  "label",
  "annotate",
  "create",
  "apply",
  "replace",
])

/** Subcommands that change the cluster or open access into it. */
const MUTATING = new Set(
  (
    "cp port-forward attach debug delete apply edit patch scale drain cordon uncordon run create replace set " +
    "label annotate taint rollout expose autoscale proxy certificate wait kustomize plugin diff"
  ).split(" "),
)

function classifyKubectl(args: readonly string[], cwd = "/"): Verdict {
  // The subcommand cobra will run, found the way cobra finds it, is checked first.
  const [cobraSub, ...cobraRest] = cobraWords(args)
  const sourced = sourceDeny(cobraSub, args, cwd)
  if (sourced) return sourced
  const cobraHard = cobraSub === undefined ? undefined : hardDeny(cobraSub, cobraRest, [], args)
  if (cobraHard) return cobraHard
  const outer = scanOptions(args, { ...GLOBAL_SPEC, ...mergeAll() })
  if (!outer.ok) return unknownFlag(args, outer.reason)
  const [sub, ...rest] = outer.operands
  if (sub === undefined) return approve("kubectl without a subcommand")
  const hard = hardDeny(sub, rest, outer.options, args)
  if (hard) return hard
  if (sub !== cobraSub) return approve(`kubectl: flags before ${sub} make its subcommand ambiguous`)
  if (MUTATING.has(sub)) return approve(`kubectl ${sub} changes the cluster or opens access to it`)
  const flags = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined
  if (!flags) return approve(`kubectl ${sub} is not on the read-only allowlist`)
  const scan = scanOptions(args, pflag(GLOBAL_FLAGS, flags))
  if (!scan.ok) return approve(`kubectl ${sub}: ${scan.reason}`)
  const risky = scan.options.find((o) => isGlobal(o.name) && !GLOBAL_SAFE.has(o.name))
  const checks: Verdict[] = []
  if (risky)
    checks.push(approve(`kubectl ${risky.name} changes the target cluster, identity or writes files`))
  for (const option of scan.options) checks.push(optionVerdict(sub, option))
  if (sub === "auth" && rest[0] !== "can-i" && rest[0] !== "whoami")
    checks.push(approve(`kubectl auth ${rest[0] ?? ""} is not read-only`))
  if (sub === "cluster-info" && rest[0] === "dump")
    checks.push(approve("kubectl cluster-info dump can write files"))
  if (sub === "config") checks.push(classifyConfig(rest[0]))
  return worst(allow(`kubectl ${sub} is read-only`), ...checks)
}

/**
 * The command words as cobra's `Find` sees them: before the subcommand only the root's flags are
 * known, and any other `--flag` or `-x` without `=` is taken to have a value in the next word
 * (`kubectl --quiet auth exec POD -- id` runs `exec`). Bools of the root take no value.
 */
function cobraWords(args: readonly string[]): string[] {
  const words: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    if (!arg.startsWith("-") || arg === "-") {
      words.push(arg)
      continue
    }
    if (arg.includes("=")) continue
    const isBool = arg.startsWith("--") ? GLOBAL_FLAG.includes(arg.slice(2).replace(/_/g, "-")) : arg === "-h"
    if (!isBool && (arg.startsWith("--") || arg.length === 2)) i++
  }
  return words
}

/** Every flag any subcommand knows, so the first scan can set their values aside. */
function mergeAll(): OptionSpec {
  const all = pflag(...Object.values(SUBCOMMANDS))
  const global = GLOBAL_SPEC
  return {
    shortFlag: `${global.shortFlag}${all.shortFlag}`,
    shortValue: `${global.shortValue}${all.shortValue}`,
    longValue: [...(global.longValue ?? []), ...(all.longValue ?? [])],
    longFlag: [...(global.longFlag ?? []), ...(all.longFlag ?? [])],
  }
}

function isGlobal(name: string): boolean {
  return ["-n", "-s", "-v", "-h"].includes(name) || [...GLOBAL_VALUE, ...GLOBAL_FLAG].includes(name.slice(2))
}

function optionVerdict(sub: string, option: ScannedOption): Verdict {
  const { name, value = "" } = option
  if (name === "-f" && sub === "logs") return allow()
  if (name === "-f" || name === "--filename" || name === "-k" || name === "--kustomize")
    return approve(`kubectl ${name} reads manifests from files or URLs`)
  if (name === "--raw") return approve("kubectl --raw sends any request to the API server")
  if ((name === "-o" || name === "--output") && /file/i.test(value))
    return approve("kubectl -o …-file reads a template file")
  return allow()
}

/** Forms refused even with approval: a shell in a container, secrets, the namespace wipe. */
function hardDeny(
  sub: string,
  rest: readonly string[],
  options: readonly ScannedOption[],
  args: readonly string[],
): Verdict | undefined {
  if (sub === "exec") return deny("kubectl exec runs commands inside containers")
  if (sub === "delete" && rest.some((r) => isResource(r, NAMESPACE)))
    return deny("kubectl delete namespace destroys everything in it")
  // `all` is every workload kind: with --all (or -A) it empties a namespace (or the cluster).
  if (sub === "delete" && rest.some((r) => isResource(r, ALL)))
    return deny("kubectl delete all removes every workload in the namespace")
  if (sub === "create" && rest[0] === "token") return deny("kubectl create token mints a credential")
  if (SECRET_READERS.has(sub) && rest.some((r) => isResource(r, SECRET)))
    return deny(`kubectl ${sub} of secrets exposes credentials`)
  const raw = options.find((o) => o.name === "--raw")
  if (raw && namesSecrets(raw.value ?? "")) return deny("kubectl --raw of secrets exposes credentials")
  if (sub === "config" && rest[0] === "view" && args.some((a) => /^--(raw|flatten)(=|$)/.test(a)))
    return deny("kubectl config view --raw prints kubeconfig credentials")
  return undefined
}

/**
 * A flag dupin does not know: kubectl would stop there, but where the subcommand is cannot be
 * told, so the deny forms are looked for in every word.
 */
function unknownFlag(args: readonly string[], reason: string): Verdict {
  const words = args.filter((a) => !a.startsWith("-"))
  for (let i = 0; i < words.length; i++) {
    const hard = hardDeny(words[i]!, words.slice(i + 1), [], args)
    if (hard) return hard
  }
  if (args.some((a) => /^--raw(=|$)/.test(a)) && args.some(namesSecrets))
    return deny("kubectl --raw of secrets exposes credentials")
  return approve(`kubectl: ${reason}`)
}

function classifyConfig(action: string | undefined): Verdict {
  if (action === "view") return approve("kubectl config view shows cluster endpoints and users")
  if (action === "get-contexts" || action === "current-context" || action === "get-clusters")
    return allow("kubectl config read")
  return approve(`kubectl config ${action ?? ""} changes the kubeconfig`)
}

/** The command `kubectl run/debug … -- CMD` runs in the container, for the policy to classify. */
function kubectlInnerCommand(args: readonly string[]): string[] | undefined {
  const dash = args.indexOf("--")
  if (dash === -1) return undefined
  const head = scanOptions(args.slice(0, dash), { ...GLOBAL_SPEC, ...mergeAll() })
  const subs = [
    head.ok ? head.operands[0] : args.find((a) => !a.startsWith("-")),
    cobraWords(args.slice(0, dash))[0],
  ]
  return subs.some((sub) => sub === "run" || sub === "debug") ? args.slice(dash + 1) : undefined
}

/** An API path to secrets, also when percent-encoded (the API server decodes the path). */
function namesSecrets(path: string): boolean {
  let decoded = path
  for (let i = 0; i < 3; i++) {
    try {
      decoded = decodeURIComponent(decoded)
    } catch {
      return true
    }
  }
  return /\/secrets\b/i.test(decoded)
}

const SECRET = new Set(["secret", "secrets"])
const NAMESPACE = new Set(["namespace", "namespaces", "ns"])
const ALL = new Set(["all"])

/** `pods,secrets`, `secret/x`, `secrets.v1.`, `Secret`: resource names as kubectl reads them. */
function isResource(word: string, names: Set<string>): boolean {
  return word.split(",").some((piece) => names.has(piece.split("/")[0]!.split(".")[0]!.trim().toLowerCase()))
}

export const KUBECTL: Record<string, ProgramRule> = {
  kubectl: {
    // `kubectl run/debug … -- CMD`: the command in the container is classified too.
    classify: (args: readonly string[], context: RuleContext) => {
      const inner = kubectlInnerCommand(args)
      const own = classifyKubectl(args, context.cwd)
      return inner ? worst(own, context.wrapped({ kind: "argv", argv: inner })) : own
    },
    writes: (args) => args.includes("cp"),
    outputOptions: ["--log-file", "--log_file", "--profile-output", "--log-dir", "--log_dir", "--cache-dir"],
    inputChoosesSubcommand: true,
    kubeconfigFlag: true,
    examples: {
      allow: ["kubectl get pods -A", "kubectl logs -f --tail=10 pod -c main", "kubectl config get-contexts"],
      ask: ["kubectl delete pod x", "kubectl get pods --context=prod", "kubectl config view"],
      deny: [
        "kubectl exec p -- id",
        "kubectl get secret x -o yaml",
        "kubectl delete namespace x",
        "kubectl --log-file=/etc/cron.d/x get pods",
        "kubectl get pods | xargs kubectl",
      ],
    },
  },
}
