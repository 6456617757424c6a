import { checkPath, guardsFor, isUnderEtc } from "./paths.ts"
import type { BashPolicyConfig } from "./policy.ts"
import { ruleFor } from "./rules/registry.ts"
import { outputPaths, textWritePaths } from "./rules/writers.ts"
import { deny, type Verdict } from "./verdict.ts"
import type { Walk } from "./walk.ts"

/**
 * What is refused even with approval, whatever the program: environment and variable dumps,
 * protected paths (credentials, dupin's own files), `rm -r`, writes under /etc. The matcher of the
 * config's allow and deny lists lives here too.
 */
export function hardDeny(
  name: string,
  args: readonly string[],
  config: BashPolicyConfig,
  walk: Walk,
): Verdict | undefined {
  const rule = ruleFor(name)
  // Environment dumps hand provider keys and tokens to the model, as do the shell's own dumps of
  // every variable (`bash -c set`, `export -p`). In an embedded search `env` is a word of the
  // text (`kubectl set env d X=1`, `-m "update env"`).
  const dumps = rule?.dumps
  if (dumps && !walk.embedded && (dumps.when === undefined || args.every((a) => dumps.when!.test(a))))
    return deny(`${name} prints ${dumps.what} (credentials)`)
  // Inside an embedded search the words were the outer stage's arguments, whose paths it checked
  // with its own exceptions (`kubectl --kubeconfig`, `df /dev/sda1`).
  for (const [index, arg] of walk.embedded ? [] : args.entries()) {
    const { paths } = walk.budget
    walk.budget.guards ??= guardsFor(config)
    if (!paths.has(arg)) paths.set(arg, checkPath(arg, config, walk.budget.guards))
    const reason = paths.get(arg)?.deny
    if (!reason) continue
    // kubectl/helm --kubeconfig uses a kubeconfig without printing it; that is a target flag
    // (approve). Not for dupin's own files: a parse error could quote them.
    const isKubeconfigFlag = /^--kubeconfig(=|$)/.test(arg) || args[index - 1] === "--kubeconfig"
    if (rule?.kubeconfigFlag && isKubeconfigFlag && /holds a kubeconfig$/.test(reason)) continue
    // Naming a disk is not reading it for programs that only look at devices' metadata.
    if (rule?.deviceMetadata && reason.includes(" is a block device (")) continue
    return deny(`a protected path (credentials; refused even with approval): ${reason}`)
  }
  const refused = rule?.refuse?.(args)
  if (refused) return refused
  const writes = typeof rule?.writes === "function" ? rule.writes(args) : rule?.writes === true
  const targets = writes ? args : [...outputPaths(name, args), ...textWritePaths(name, args)]
  const target = targets.find((a) => isUnderEtc(a, config.cwd))
  if (target) return deny(`${name} would write under /etc (${target})`)
  return undefined
}

/** Whether the argv starts with one of the prefixes, token for token. */
export function matchesPrefix(
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
