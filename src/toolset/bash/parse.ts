import { type Command, type CommandNode, type Pipeline, parse, type Redirection } from "unbash"
import { literalWord } from "./words.ts"

/** A command line reduced to what dupin runs: one argv per pipeline stage, no shell involved. */
export type ParsedCommand = { ok: true; stages: string[][] } | { ok: false; reason: string }

const fail = (reason: string): ParsedCommand => ({ ok: false, reason })

/**
 * Bounds checked before anything runs: each stage is a process with its pipes (a 3,000-stage
 * pipeline once took 2,793 processes and 11,521 descriptors from dupin), and the text is parsed
 * on the event loop.
 */
export const MAX_STAGES = 16
export const MAX_COMMAND_LENGTH = 4096

/**
 * Parses `source` with a real bash grammar and accepts only a pipeline of simple commands whose
 * every word is a literal. Anything else fails closed with the reason: the model must not be able
 * to get a shell to interpret text, so no construct that a shell would evaluate is let through.
 */
export function parseCommand(source: string): ParsedCommand {
  if (source.includes("\0")) return fail("The command contains a NUL byte.")
  if (source.length > MAX_COMMAND_LENGTH)
    return fail(
      `The command is ${source.length} characters long; at most ${MAX_COMMAND_LENGTH} are accepted.`,
    )
  let script: ReturnType<typeof parse>
  try {
    script = parse(source)
  } catch (error) {
    return fail(`The command could not be parsed: ${error instanceof Error ? error.message : String(error)}.`)
  }
  if (script.errors?.length)
    return fail(`The command is not valid shell syntax: ${script.errors[0]!.message}.`)
  if (script.commands.length === 0) return fail("The command is empty.")
  // `a; b`, `a && b`, a newline between commands: one pipeline per call, so nothing rides along.
  if (script.commands.length > 1)
    return fail("Only one pipeline is allowed: no `;`, `&` or newline between commands.")
  const statement = script.commands[0]!
  if (statement.background) return fail("Backgrounding with `&` is not allowed.")
  const node = statement.command
  if (node.type === "AndOr") return fail("`&&` and `||` are not allowed: run one pipeline per call.")
  const commands = node.type === "Pipeline" ? pipelineCommands(node) : { ok: true as const, commands: [node] }
  if (!commands.ok) return fail(commands.reason)
  if (commands.commands.length > MAX_STAGES)
    return fail(
      `The pipeline has ${commands.commands.length} stages; at most ${MAX_STAGES} are run. Split it into several calls.`,
    )

  const stages: string[][] = []
  for (const [index, command] of commands.commands.entries()) {
    const isLast = index === commands.commands.length - 1
    const stage = stageArgv(command, isLast)
    if (!stage.ok) return fail(stage.reason)
    stages.push(stage.argv)
  }
  // Whatever the grammar drops between statements (a trailing `;` or `&`) must not be there either.
  const rest = source.slice(0, statement.pos) + source.slice(statement.end)
  if (!/^\s*(#[^\n]*)?\s*$/.test(rest)) return fail("Only one pipeline is allowed: no `;` or `&`.")
  return { ok: true, stages }
}

function pipelineCommands(
  pipeline: Pipeline,
): { ok: true; commands: readonly CommandNode[] } | { ok: false; reason: string } {
  if (pipeline.prefixes.length > 0)
    return { ok: false, reason: "`time` and `!` before a pipeline are not allowed." }
  // `|&` also pipes stderr; dupin wires stdout only, so the command would not mean what it says.
  if (pipeline.operators.some((op) => op !== "|"))
    return { ok: false, reason: "`|&` is not allowed; use `|`." }
  return { ok: true, commands: pipeline.commands }
}

type StageResult = { ok: true; argv: string[] } | { ok: false; reason: string }

function stageArgv(node: CommandNode, isLast: boolean): StageResult {
  if (node.type !== "Command")
    return { ok: false, reason: `${COMPOUND[node.type] ?? node.type} is not allowed.` }
  const command: Command = node
  // `VAR=x cmd` changes the environment of the command (LD_PRELOAD, PATH, KUBECONFIG…).
  if (command.prefix.some((p) => p.type === "Assignment")) {
    return { ok: false, reason: "Environment assignments (NAME=value before a command) are not allowed." }
  }
  if (!command.name) return { ok: false, reason: "A command name is missing." }
  const argv: string[] = []
  for (const item of [command.name, ...command.suffix]) {
    if (item.type === "Assignment") return { ok: false, reason: `Assignment ${item.text} is not allowed.` }
    if (item.type !== "Word") {
      const problem = redirectionProblem(item, isLast)
      if (problem) return { ok: false, reason: problem }
      continue
    }
    const literal = literalWord(item)
    if (!literal.ok) return { ok: false, reason: `Not allowed: ${literal.reason}.` }
    argv.push(literal.value)
  }
  for (const item of command.prefix) {
    if (item.type !== "Assignment") {
      const problem = redirectionProblem(item, isLast)
      if (problem) return { ok: false, reason: problem }
    }
  }
  return { ok: true, argv }
}

/**
 * Every redirection is refused (files written or read, here-docs, here-strings, fd juggling),
 * except `2>&1` on the last stage: dupin already returns every stage's stderr with the output, so
 * there it changes nothing and is dropped.
 */
function redirectionProblem(redirect: Redirection, isLast: boolean): string | undefined {
  const isStderrToStdout =
    redirect.type === "Redirect" &&
    redirect.operator === ">&" &&
    redirect.descriptor?.type === "FileDescriptor" &&
    redirect.descriptor.value === 2 &&
    redirect.target?.text === "1"
  if (isStderrToStdout && isLast) return undefined
  if (redirect.type === "HereDoc") return "Here-documents (<<) are not allowed."
  if (redirect.type === "HereString") return "Here-strings (<<<) are not allowed."
  return `Redirections (${redirect.operator}) are not allowed: output comes back to you without them${
    isStderrToStdout ? ", and `2>&1` is only accepted at the end of the last command" : ""
  }.`
}

const COMPOUND: Record<string, string> = {
  Subshell: "A subshell ( … )",
  BraceGroup: "A { … } group",
  Function: "A function definition",
  If: "`if`",
  For: "`for`",
  ArithmeticFor: "`for ((…))`",
  While: "`while`/`until`",
  Select: "`select`",
  Case: "`case`",
  TestCommand: "`[[ … ]]`",
  ArithmeticCommand: "`((…))`",
  Coproc: "`coproc`",
  Redirected: "A redirected compound command",
}
