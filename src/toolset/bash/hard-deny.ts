import { checkPath, guardsFor, isUnderEtc } from "./paths.ts"
import type { BashPolicyConfig } from "./policy.ts"
import { writesFiles } from "./rules/filters.ts"
import { isRecursiveRemove, outputPaths, textWritePaths, WRITERS } from "./rules/writers.ts"
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
  // Environment dumps hand provider keys and tokens to the model.
  // In an embedded search `env` is a word of the text (`kubectl set env d X=1`, `-m "update env"`).
  if ((name === "env" || name === "printenv") && !walk.embedded)
    return deny(`${name} prints the environment (credentials)`)
  // The shell's own dumps of every variable, exported ones included (`bash -c set`, `export -p`).
  const dumpArgs = name === "set" ? args.length === 0 : args.every((a) => /^-[pxrgaAfFil]*$/.test(a))
  if (SHELL_DUMPS.has(name) && !walk.embedded && dumpArgs)
    return deny(`${name} prints the shell's variables and environment (credentials)`)
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
    if ((name === "kubectl" || name === "helm") && isKubeconfigFlag && /holds a kubeconfig$/.test(reason))
      continue
    // Naming a disk is not reading it for programs that only look at devices' metadata.
    if (DEVICE_METADATA.has(name) && reason.includes(" is a block device (")) continue
    return deny(`a protected path (credentials; refused even with approval): ${reason}`)
  }
  if (name === "rm" && isRecursiveRemove(args)) return deny("rm -r deletes trees")
  const writes =
    WRITERS.has(name) ||
    writesFiles(name, args) ||
    ((name === "kubectl" || name === "docker") && args.includes("cp"))
  const targets = writes ? args : [...outputPaths(name, args), ...textWritePaths(name, args)]
  const target = targets.find((a) => isUnderEtc(a, config.cwd))
  if (target) return deny(`${name} would write under /etc (${target})`)
  return undefined
}

export const SHELL_DUMPS = new Set(["set", "declare", "typeset", "export", "readonly", "local"])

/** Programs that take a block device and read only its metadata (`df /dev/sda1`). */
const DEVICE_METADATA = new Set([
  "df",
  "lsblk",
  "findmnt",
  "stat",
  "ls",
  "du",
  "iostat",
  "lsof",
  "readlink",
  "realpath",
])

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
