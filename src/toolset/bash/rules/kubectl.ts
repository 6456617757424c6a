import { allow, approve, deny, type Verdict, worst } from "../verdict.ts"

/** Global flags that take a value, so their value is not mistaken for the subcommand. */
const VALUE_FLAGS = new Set([
  "-n",
  "--namespace",
  "--request-timeout",
  "-o",
  "--output",
  "-l",
  "--selector",
  "-c",
  "--container",
])

/**
 * Flags that point kubectl at another cluster, identity or credential, or make it write files:
 * the read-only allowlist was granted for the configured cluster and identity only.
 */
const TARGET_FLAGS = [
  "--kubeconfig",
  "--context",
  "--cluster",
  "--user",
  "--token",
  "--as",
  "--as-group",
  "--as-uid",
  "-s",
  "--server",
  "--username",
  "--password",
  "--client-certificate",
  "--client-key",
  "--certificate-authority",
  "--insecure-skip-tls-verify",
  "--tls-server-name",
  "--raw",
  "--cache-dir",
  "--log-file",
  "--profile-output",
  "-v",
  "--v",
  "--vmodule",
  "--log-dir",
  "--kustomize",
  "-k",
  "--filename",
  "--template",
]

/** Read-only subcommands. `logs -f` only follows (a timeout ends it); `-f` elsewhere reads a file. */
const READ_ONLY = new Set([
  "get",
  "describe",
  "logs",
  "top",
  "events",
  "explain",
  "api-resources",
  "api-versions",
  "version",
  "cluster-info",
  "auth",
  "config",
])

/** Mutations and interactive access: a human decides. */
const MUTATING = new Set([
  "exec",
  "cp",
  "port-forward",
  "attach",
  "debug",
  "delete",
  "apply",
  "edit",
  "patch",
  "scale",
  "drain",
  "cordon",
  "uncordon",
  "run",
  "create",
  "replace",
  "set",
  "label",
  "annotate",
  "taint",
  "rollout",
  "expose",
  "autoscale",
  "proxy",
  "certificate",
  "wait",
  "kustomize",
  "plugin",
  "diff",
])

export function classifyKubectl(args: readonly string[]): Verdict {
  const positional = positionals(args)
  const [sub, ...rest] = positional
  if (sub === undefined) return approve("kubectl without a subcommand")
  const checks: Verdict[] = []
  const flag = args.find(
    (a) => TARGET_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)) || /[svk]/.test(shorthands(a)),
  )
  if (flag)
    checks.push(approve(`kubectl ${flag.split("=")[0]} changes the target cluster, identity or output files`))

  // `kubectl exec` gives the model a shell in a container: refused outright.
  if (sub === "exec") return deny("kubectl exec runs commands inside containers")
  if (sub === "delete" && rest.some((r) => isResource(r, NAMESPACE)))
    return deny("kubectl delete namespace destroys everything in it")
  // Secret data: `get secret -o yaml`, `describe secrets`, `get all,secrets`, `get secret/x`.
  if (
    ["get", "describe", "edit", "patch", "label", "annotate", "create", "apply", "replace"].includes(sub) &&
    rest.some((r) => isResource(r, SECRET))
  ) {
    return deny(`kubectl ${sub} of secrets exposes credentials`)
  }
  if (args.includes("--raw") && args.some((a) => /\/secrets\b/.test(a)))
    return deny("kubectl --raw of secrets exposes credentials")
  if (sub === "config") return worst(...checks, classifyConfig(args))
  if (MUTATING.has(sub))
    return worst(...checks, approve(`kubectl ${sub} changes the cluster or opens access to it`))
  if (!READ_ONLY.has(sub))
    return worst(...checks, approve(`kubectl ${sub} is not on the read-only allowlist`))
  if (sub === "auth" && rest[0] !== "can-i" && rest[0] !== "whoami")
    return worst(...checks, approve(`kubectl auth ${rest[0] ?? ""} is not read-only`))
  if (sub === "cluster-info" && rest[0] === "dump")
    return worst(...checks, approve("kubectl cluster-info dump can write files"))
  // -f is a file to read everywhere but in `logs`, where it means follow.
  if (sub !== "logs" && args.some((a) => shorthands(a).includes("f"))) {
    return worst(...checks, approve("kubectl -f reads manifests from files or URLs"))
  }
  const output = outputFormat(args)
  if (output && /file/.test(output))
    return worst(...checks, approve("kubectl -o …-file reads a template file"))
  return worst(allow(`kubectl ${sub} is read-only`), ...checks)
}

function classifyConfig(args: readonly string[]): Verdict {
  const positional = positionals(args)
  const action = positional[1]
  if (action === "view") {
    // --raw and --flatten print client keys and tokens that plain `view` redacts.
    if (
      args.some(
        (a) => a === "--raw" || a.startsWith("--raw=") || a === "--flatten" || a.startsWith("--flatten="),
      )
    ) {
      return deny("kubectl config view --raw prints kubeconfig credentials")
    }
    return approve("kubectl config view shows cluster endpoints and users")
  }
  if (action === "get-contexts" || action === "current-context" || action === "get-clusters")
    return allow("kubectl config read")
  return approve(`kubectl config ${action ?? ""} changes the kubeconfig`)
}

/** Words that are not flags or flag values. */
function positionals(args: readonly string[]): string[] {
  const result: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      result.push(...args.slice(i + 1))
      break
    }
    if (arg.startsWith("-")) {
      if (VALUE_FLAGS.has(arg) || TARGET_FLAGS.includes(arg)) i++
      continue
    }
    result.push(arg)
  }
  return result
}

/**
 * The shorthands in a pflag group (`-it`, `-Aoyaml`, `-sURL`): letters up to and including the
 * first one that takes a value, since the rest of the word is that value.
 */
function shorthands(arg: string): string {
  if (!/^-[A-Za-z]/.test(arg)) return ""
  let result = ""
  for (const c of arg.slice(1)) {
    result += c
    if ("nolcLskvf".includes(c)) break
  }
  return result
}

function outputFormat(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "-o" || arg === "--output") return args[i + 1]
    if (arg.startsWith("--output=")) return arg.slice(9)
    if (/^-o./.test(arg)) return arg.slice(2).replace(/^=/, "")
  }
  return undefined
}

const SECRET = new Set(["secret", "secrets"])
const NAMESPACE = new Set(["namespace", "namespaces", "ns"])

/** `pods,secrets`, `secret/x`, `secrets.v1.`, `Secret`: resource names as kubectl reads them. */
function isResource(word: string, names: Set<string>): boolean {
  return word.split(",").some((piece) => names.has(piece.split("/")[0]!.split(".")[0]!.trim().toLowerCase()))
}
