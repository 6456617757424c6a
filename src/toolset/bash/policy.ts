import { parseCommand } from "./parse.ts"
import { credentialReason, isUnderEtc } from "./paths.ts"
import { classifyCloud, classifyDocker, classifyHelm } from "./rules/cli.ts"
import { classifyFilter, classifyJq, isFilter } from "./rules/filters.ts"
import { classifyHost } from "./rules/host.ts"
import { classifyKubectl } from "./rules/kubectl.ts"
import { INTERPRETERS, isWrapper, SHELLS, shellScript, wrappedCommand } from "./rules/wrappers.ts"
import { isRecursiveRemove, WRITERS } from "./rules/writers.ts"
import { approve, atLeastApprove, deny, type Verdict, worst } from "./verdict.ts"

export type BashPolicyConfig = {
  /** Token prefixes of an argv that run without approval (`kubectl rollout status`). */
  allow?: readonly string[]
  /** Token prefixes that never run, approved or not. Deny wins over allow. */
  deny?: readonly string[]
  /** Directory commands run in; relative paths are resolved against it. */
  cwd: string
}

/** The verdict for a whole pipeline: its most restrictive stage. */
export function classifyPipeline(stages: readonly string[][], config: BashPolicyConfig, depth = 0): Verdict {
  return worst(...stages.map((argv) => classifyStage(argv, config, depth)))
}

/**
 * One stage: hard deny first (credentials, /etc writes, `rm -r`, secrets…; config cannot undo it),
 * then the config deny list, then the built-in rules, then the config allow list, which can lift
 * "needs approval" to "allowed" but never lift a denial.
 */
export function classifyStage(argv: readonly string[], config: BashPolicyConfig, depth = 0): Verdict {
  const [program, ...args] = argv
  if (program === undefined || program === "") return deny("empty command")
  const name = program.slice(program.lastIndexOf("/") + 1)
  const hard = hardDeny(name, args, config.cwd)
  if (hard) return hard
  if (matchesPrefix(argv, config.deny, name))
    return deny("refused by the bash toolset's deny list in the config")
  const builtin = builtinVerdict(name, args, config, depth)
  if (builtin.decision === "deny") return builtin
  // A program given by path is not the one on the allowlist, whatever it is called.
  const verdict = program.includes("/") ? worst(builtin, approve(`${program} is run by path`)) : builtin
  if (verdict.decision === "approve" && matchesPrefix(argv, config.allow)) {
    return { decision: "allow", reason: "allowed by the bash toolset's allow list in the config" }
  }
  return verdict
}

function hardDeny(name: string, args: readonly string[], cwd: string): Verdict | undefined {
  // Environment dumps hand provider keys and tokens to the model.
  if (name === "env" || name === "printenv") return deny(`${name} prints the environment (credentials)`)
  for (const [index, arg] of args.entries()) {
    const reason = credentialReason(arg)
    if (!reason) continue
    // kubectl/helm --kubeconfig uses a kubeconfig without printing it; that is a target flag (approve).
    const isKubeconfigFlag = /^--kubeconfig(=|$)/.test(arg) || args[index - 1] === "--kubeconfig"
    if ((name === "kubectl" || name === "helm") && isKubeconfigFlag && reason.endsWith("a kubeconfig"))
      continue
    return deny(`reading credentials: ${reason}`)
  }
  if (name === "rm" && isRecursiveRemove(args)) return deny("rm -r deletes trees")
  const writes =
    WRITERS.has(name) ||
    (name === "sed" && args.some((a) => /^-[a-zA-Z]*i|^--in-place/.test(a))) ||
    (name === "sort" && args.some((a) => /^-[a-zA-Z]*o|^--output/.test(a))) ||
    ((name === "kubectl" || name === "docker") && args[0] === "cp")
  if (writes) {
    const target = args.find((a) => isUnderEtc(a, cwd))
    if (target) return deny(`${name} would write under /etc (${target})`)
  }
  return undefined
}

function builtinVerdict(
  name: string,
  args: readonly string[],
  config: BashPolicyConfig,
  depth: number,
): Verdict {
  if (name === "kubectl") return classifyKubectl(args)
  if (name === "helm") return classifyHelm(args)
  if (name === "docker") return classifyDocker(args)
  if (["aws", "az", "gcloud", "argocd", "terraform", "oc", "eksctl"].includes(name))
    return classifyCloud(name, args)
  if (name === "jq") return classifyJq(args)
  if (isFilter(name)) return classifyFilter(name, args)
  const host = classifyHost(name, args)
  if (host) return host
  if (isWrapper(name)) return wrapped(name, wrappedCommand(name, args), config, depth)
  if (SHELLS.has(name)) {
    const script = shellScript(args)
    const parsed = script === undefined ? undefined : parseCommand(script)
    if (!parsed?.ok || depth > 3) return approve(`${name} runs a shell script`)
    return atLeastApprove(classifyPipeline(parsed.stages, config, depth + 1), `${name} -c runs a shell`)
  }
  if (INTERPRETERS.has(name)) return approve(`${name} runs code`)
  return approve(`${name} is not on the read-only allowlist`)
}

function wrapped(name: string, inner: string[], config: BashPolicyConfig, depth: number): Verdict {
  const reason = `${name} runs another command`
  if (inner.length === 0 || depth > 3) return approve(reason)
  return atLeastApprove(classifyStage(inner, config, depth + 1), reason)
}

/** Whether the argv starts with one of the prefixes, token for token. */
function matchesPrefix(
  argv: readonly string[],
  prefixes: readonly string[] | undefined,
  name?: string,
): boolean {
  return (prefixes ?? []).some((prefix) => {
    const tokens = prefix.trim().split(/\s+/)
    if (tokens.length === 0 || tokens[0] === "") return false
    // The deny list also matches a program run by path (`/usr/bin/kubectl delete`).
    const head = name !== undefined && tokens[0] === name ? name : argv[0]
    return (
      [head, ...argv.slice(1)].slice(0, tokens.length).join("\0") === tokens.join("\0") &&
      argv.length >= tokens.length
    )
  })
}
