import { posix } from "node:path"
import { embeddedCommands } from "./embedded.ts"
import { hardDeny, matchesPrefix } from "./hard-deny.ts"
import { inputExecutor } from "./input-executors.ts"
import { parseCommand } from "./parse.ts"
import { classifyByRule, type Inner } from "./rules/program.ts"
import { ruleFor } from "./rules/registry.ts"
import { COMPUTED, scriptCommands } from "./rules/script-commands.ts"
import { wrappedCommand } from "./rules/wrappers.ts"
import { approve, atLeastApprove, deny, type Verdict, worst } from "./verdict.ts"
import { deeper, MAX_DEPTH, MAX_UNKNOWN_ARGS, start, type Walk } from "./walk.ts"

export type BashPolicyConfig = {
  /** Token prefixes of an argv that run without approval (`kubectl rollout status`). */
  allow?: readonly string[]
  /** Token prefixes that never run, approved or not. Deny wins over allow. */
  deny?: readonly string[]
  /** Directory commands run in; relative paths are resolved against it. */
  cwd: string
  /**
   * Files and folders no command may name, approved or not, on top of the built-in credential
   * list: dupin's config file, the entries of KUBECONFIG. The composition passes them.
   */
  protectedPaths?: readonly string[]
}

/** The verdict for a whole pipeline: its most restrictive stage. */
export function classifyPipeline(
  stages: readonly string[][],
  config: BashPolicyConfig,
  walk: Walk = start(),
): Verdict {
  return worst(
    ...stages.map((argv, i) =>
      // The piped verdict first: on a tie its reason (the commands the data becomes) is shown.
      worst(piped(stages[i - 1], argv, config, walk), classifyStage(argv, config, walk)),
    ),
  )
}

/**
 * `echo 'rm -r /x' | sh`: a shell reading its script from the pipe runs what the stage before
 * printed, also inside wrappers (`| sudo sh`, `| timeout 5 bash`). When that stage is a plain
 * echo or printf the script is known and is classified like `sh -c`; any other stage (`base64
 * -d`, `cat x`, `curl`) prints a script neither dupin nor the human approving can read, which is
 * refused.
 */
function piped(
  before: readonly string[] | undefined,
  argv: readonly string[],
  config: BashPolicyConfig,
  walk: Walk,
): Verdict | undefined {
  // Also sed `e`, awk `system($0)`, `sort --compress-program=sh` (see input-executors.ts).
  const name = before && (stdinShell(argv, 0) ?? inputExecutor(argv))
  if (!before || name === undefined) return undefined
  const [producer, ...words] = before
  const printer = producer?.slice(producer.lastIndexOf("/") + 1) ?? ""
  const prints = ruleFor(printer)?.prints
  if (prints === undefined)
    return deny(`${name} would run as commands what ${producer} prints, which dupin cannot read`)
  const text = words.filter((w) => !/^-[neE]+$/.test(w)).join(" ")
  // Escapes (`\x72m`, `\162m`) and printf directives (`%s%s` r m, `%b`) spell words the text
  // does not show; only the plain text with `\n` line breaks is read.
  if (/\\[^n]|\\$/.test(text) || (prints === "format" && text.includes("%")))
    return deny(
      `${name} would run what ${printer} builds from escapes or directives, which dupin does not decode`,
    )
  const script = text.replace(/\\n/g, "\n")
  const verdict = shellVerdict(name, script, config, walk)
  // The person approving sees the commands the data will run, not only the program reading it.
  return verdict.decision === "approve"
    ? approve(`${name} runs what ${printer} prints as commands (${script.slice(0, 200)}): ${verdict.reason}`)
    : verdict
}

/** The shell in `argv`, through wrappers, when it reads its script from standard input. */
function stdinShell(argv: readonly string[], depth: number): string | undefined {
  const [program, ...args] = argv
  const name = program?.slice(program.lastIndexOf("/") + 1)
  if (name === undefined || depth > MAX_DEPTH) return undefined
  const rule = ruleFor(name)
  if (rule?.runs === "script") return rule.scriptArgument?.(args) === undefined ? name : undefined
  if (!rule?.wraps) return undefined
  const inner = wrappedCommand(rule.wraps, args)
  if (inner.kind === "argv") return stdinShell(inner.argv, depth + 1)
  // Where a wrapper's command starts is unknown: a shell anywhere in it may be the one.
  if (inner.kind === "unknown")
    return inner.args.map((_, i) => stdinShell(inner.args.slice(i), depth + 1)).find((n) => n !== undefined)
  return undefined
}

/**
 * One stage: hard deny first (credentials, /etc writes, `rm -r`, secrets…; config cannot undo it),
 * then the config deny list, then the built-in rules, then the config allow list, which can lift
 * "needs approval" to "allowed" but never lift a denial.
 */
export function classifyStage(
  argv: readonly string[],
  config: BashPolicyConfig,
  walk: Walk = start(),
): Verdict {
  const [program, ...args] = argv
  if (program === undefined || program === "") return deny("empty command")
  if (walk.depth > MAX_DEPTH) return deny("commands nested this deep in wrappers and shells are not run")
  if (--walk.budget.left < 0) return deny("the command line holds too many possible commands to check")
  const name = program.slice(program.lastIndexOf("/") + 1)
  const hard = hardDeny(name, args, config, walk)
  if (hard) return hard
  if (matchesPrefix(argv, config.deny, name))
    return deny("refused by the bash toolset's deny list in the config")
  const own = worst(builtinVerdict(name, args, config, walk), pathAsk(args, walk))
  const builtin = own.decision === "approve" ? worst(own, embeddedDeny(name, args, config, walk)) : own
  if (builtin.decision === "deny") return builtin
  // A program given by path is not the one on the allowlist, whatever it is called.
  const verdict = program.includes("/") ? worst(builtin, approve(`${program} is run by path`)) : builtin
  if (verdict.decision === "approve" && matchesPrefix(argv, config.allow)) {
    return { decision: "allow", reason: "allowed by the bash toolset's allow list in the config" }
  }
  return verdict
}

/**
 * A command that needs approval may run words of its arguments as a command (see embedded.ts):
 * any form refused even with approval found in them is refused here too.
 */
function embeddedDeny(
  name: string,
  args: readonly string[],
  config: BashPolicyConfig,
  walk: Walk,
): Verdict | undefined {
  if (walk.embedded || walk.depth >= MAX_DEPTH) return undefined
  const inner: Walk = { ...deeper(walk), embedded: true }
  const { sequences, unreadable } = embeddedCommands(args)
  if (unreadable !== undefined)
    return deny(`${name} could run shell text dupin cannot read (${unreadable.slice(0, 60)})`)
  for (const words of sequences) {
    for (let i = 0; i < words.length; i++) {
      // Only a word naming a program dupin has rules for can start a refused form (paths are not
      // checked here); a long JSON patch or commit message costs nothing for its other words.
      if (!hasRules(words[i]!)) continue
      const verdict = classifyStage(words.slice(i), config, inner)
      if (verdict.decision === "deny") return deny(`${name} could run ${words[i]}…: ${verdict.reason}`)
    }
  }
  return undefined
}

/** Whether the policy has rules for the program `word` names (so it could refuse it). */
function hasRules(word: string): boolean {
  return ruleFor(word.slice(word.lastIndexOf("/") + 1)) !== undefined
}

/** An argument that reaches a file dupin cannot vet (see checkPath) asks a human. */
function pathAsk(args: readonly string[], walk: Walk): Verdict | undefined {
  const ask = args.map((arg) => walk.budget.paths.get(arg)?.ask).find((a) => a !== undefined)
  return ask === undefined ? undefined : approve(ask)
}

/**
 * The program's own verdict, by its rule: a grammar of its own, a getopt grammar, the command it
 * wraps, the script it runs. A program without a rule needs approval.
 */
function builtinVerdict(
  name: string,
  args: readonly string[],
  config: BashPolicyConfig,
  walk: Walk,
): Verdict {
  const rule = ruleFor(name)
  if (rule?.classify)
    return rule.classify(args, { cwd: config.cwd, wrapped: (inner) => wrapped(name, inner, config, walk) })
  if (rule?.options) return classifyByRule(name, args, rule)
  if (rule?.wraps) return wrapped(name, wrappedCommand(rule.wraps, args), config, walk)
  if (rule?.runs === "script") {
    const script = rule.scriptArgument?.(args)
    if (script === undefined) return approve(`${name} runs a shell`)
    return shellVerdict(name, script, config, walk)
  }
  if (rule?.runs === "code") return approve(`${name} runs code`)
  return approve(`${name} is not on the read-only allowlist`)
}

/**
 * Arguments xargs could append from its input, chosen to reach every hard-deny rule: recursion,
 * in-place edits, a path under /etc, a secrets resource.
 */
const APPENDED_PROBE = ["-r", "-i", "/etc/dupin-probe", "secrets"]
/** Further words an input could put where xargs's replace string stands: a subcommand, a script. */
const REPLACED_PROBE = ["exec", "rm -r /etc/dupin-probe"]

function wrapped(name: string, inner: Inner, config: BashPolicyConfig, walk: Walk): Verdict {
  const reason = `${name} runs another command`
  switch (inner.kind) {
    case "none":
      return approve(reason)
    case "script":
      return shellVerdict(name, inner.script, config, walk)
    case "unknown": {
      // Where the command starts is unknown: any suffix may be it, any one word a shell script.
      if (inner.args.length > MAX_UNKNOWN_ARGS)
        return deny(`${name} with ${inner.args.length} arguments: too many to tell which is the command`)
      for (let i = 0; i < inner.args.length; i++) {
        const verdict = classifyStage(inner.args.slice(i), config, deeper(walk))
        if (verdict.decision === "deny") return verdict
        const word = inner.args[i]!
        if (/[\s;&|`$()]/.test(word)) {
          const script = shellVerdict(name, word, config, walk)
          if (script.decision === "deny") return script
        }
      }
      return approve(`${reason} (its options are not known to dupin)`)
    }
    case "argv": {
      const verdict = classifyStage(inner.argv, config, deeper(walk))
      if (!inner.appendable || verdict.decision === "deny") return atLeastApprove(verdict, reason)
      const program = inner.argv[0]!.slice(inner.argv[0]!.lastIndexOf("/") + 1)
      if (inner.argv.length === 1 && ruleFor(program)?.inputChoosesSubcommand)
        return deny(`${name} ${program}: the input would choose the subcommand`)
      // A reader fed file names by its input would read a credential the line never shows.
      const probe = isReader(program) ? [...APPENDED_PROBE, "/etc/shadow"] : APPENDED_PROBE
      const { placeholder } = inner
      if (placeholder !== undefined && inner.argv[0]!.includes(placeholder))
        return deny(`${name}: the input would choose the command (${inner.argv[0]})`)
      // With a replace string each probe word, a subcommand and a script stand where it stands.
      const replaced =
        placeholder === undefined
          ? []
          : [...probe, ...REPLACED_PROBE].map((word) =>
              inner.argv.map((a) => a.replaceAll(placeholder, word)),
            )
      for (const argv of replaced) {
        const verdict = classifyStage(argv, config, deeper(walk))
        if (verdict.decision === "deny")
          return deny(
            `${name} puts its input into ${inner.argv.join(" ")}, which could make it: ${verdict.reason}`,
          )
      }
      const probed = classifyStage([...inner.argv, ...probe], config, deeper(walk))
      if (probed.decision === "deny")
        return deny(
          `${name} appends its input to ${inner.argv.join(" ")}, which could make it: ${probed.reason}`,
        )
      return atLeastApprove(verdict, reason)
    }
  }
}

/** Programs that print what is in the files they are given (not printers such as echo). */
function isReader(name: string): boolean {
  return ruleFor(name)?.reads === "files"
}

/**
 * A script run by a shell (`bash -c`, `watch`, `flock -c`). One plain pipeline is classified like
 * a command line; anything richer is approved at best, and denied when any command in it is.
 */
function shellVerdict(name: string, script: string, config: BashPolicyConfig, walk: Walk): Verdict {
  const reason = `${name} runs a shell`
  // Parsing costs in proportion to the text; it counts against the line's budget.
  walk.budget.left -= Math.floor(script.length / 64)
  if (walk.budget.left < 0) return deny("the command line holds too many possible commands to check")
  const parsed = parseCommand(script)
  if (parsed.ok) return atLeastApprove(classifyPipeline(parsed.stages, config, deeper(walk)), reason)
  const found = scriptCommands(script)
  if (!found) return approve(`${reason} script dupin cannot parse`)
  const denied = scriptDeny(name, found.commands, config, walk)
  if (denied) return denied
  return approve(found.opaque ? `${reason} script with computed words` : `${reason} script`)
}

/**
 * The commands of a script, in order, against the hard-deny list. A word the shell computes may be
 * anything: a computed command name is refused, and a computed argument is tried as the probe
 * words (`rm -$"r" d`, `set -- -r; rm "$@" d`, `cat /proc/self/env?ron`). `cd` moves where the
 * relative paths after it resolve (`cd /proc/self && cat environ`); a `cd` dupin cannot follow
 * is refused.
 */
function scriptDeny(
  name: string,
  commands: readonly string[][],
  config: BashPolicyConfig,
  walk: Walk,
): Verdict | undefined {
  let cwd = config.cwd
  let inner = deeper(walk)
  for (const argv of commands) {
    const [program, ...args] = argv
    if (program === COMPUTED) return deny(`${name} script runs a command whose name the shell computes`)
    if (program === "cd" || program === "pushd" || program === "popd") {
      const target = args.filter((a) => !/^-[LPe@]+$/.test(a))
      if (program === "popd" || target.length !== 1 || target[0] === COMPUTED || target[0] === "-")
        return deny(`${name} script changes to a directory dupin cannot follow`)
      cwd = posix.resolve(cwd, target[0]!)
      // Paths already vetted were resolved against the old directory.
      inner = { ...inner, budget: { left: walk.budget.left, paths: new Map() } }
      continue
    }
    // Inside a script a shell without a script reads one from a pipe, a here-string or a file
    // (`sh <<< "…"`, `base64 -d <<< … | sh`): text dupin cannot see.
    const reader = stdinShell(argv, 0)
    if (reader !== undefined) return deny(`${name} script runs ${reader} on a script dupin cannot see`)
    const probe = isReader(program ?? "") ? [...APPENDED_PROBE, "/etc/shadow"] : APPENDED_PROBE
    const expanded = argv.flatMap((w) => (w === COMPUTED ? probe : [w]))
    const verdict = classifyStage(expanded, { ...config, cwd }, inner)
    if (verdict.decision === "deny") return verdict
  }
  return undefined
}
