/**
 * Where bash evaluates a placeholder's value instead of passing it on as data. Arithmetic
 * (`(( ))`, `$(( ))`, `$[ ]`, `for (( ))`, `[[ -eq ]]`, array subscripts, `declare -i`), variable
 * names (`printf -v`, `read`, `unset`, `[ -v ]`, `declare NAME`) and code (`eval`, `trap`) all
 * run `a[$(cmd)]` as a command even when it comes from a quoted expansion, and a bare name met
 * there makes bash evaluate that variable's value in turn. template.ts lets only integers into
 * these places. Found with a real bash parse; what it cannot follow is an error, never a guess.
 */
import { type Command, forEachChild, parse, type SyntaxNode, type Word } from "unbash"
import { TemplateError } from "./template-error.ts"

/** Placeholder `i` is written as a reference to `${PROBE}i` in the script handed to the parser. */
export const PROBE = "_dupin_probe_"
const PROBE_RE = /_dupin_probe_(\d+)/g

type Span = { pos: number; end: number }
/** `value`: the text is evaluated, so every name in it is read; `name`: the text names a variable,
 * so only its subscript and expansions are evaluated. */
type Region = Span & { why: string; kind: "value" | "name" }

const ARITH_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"])
/**
 * Builtins whose arguments bash evaluates as arithmetic or code (`source` runs a file of it;
 * `compgen -W`/`complete -W` expand their word list, `$(cmd)` included; `bind -x` and `fc -e`
 * run commands; `enable -f` loads a library).
 */
const CODE_BUILTINS = new Set([
  "let",
  "eval",
  "trap",
  "source",
  ".",
  "compgen",
  "complete",
  "bind",
  "fc",
  "enable",
])
/** Shells whose `-c` word is a script. */
const SHELLS = new Set(["bash", "sh", "dash", "ksh", "zsh"])
/** Commands that write their input into the command line they run. */
const FEEDERS = new Set(["xargs", "find", "parallel"])
/**
 * Variables bash itself expands as code: PS4 before each `set -x` trace line, prompts, and
 * BASH_ENV/ENV when a child shell starts (command substitution included).
 */
const EXPANDED = ["PS0", "PS1", "PS2", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV"]
/** Builtins whose arguments may be variable names (`mapfile -C` even takes code). */
const NAME_BUILTINS = new Set(["unset", "read", "mapfile", "readarray", "getopts", "wait"])
/** Builtins that set variables from input dupin cannot see (stdin, options). */
const READERS = new Set(["read", "mapfile", "readarray", "getopts", "wait"])
const DECLARERS = new Set(["declare", "typeset", "local", "export", "readonly"])
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/g

/**
 * For each placeholder index whose value bash would evaluate, why (for the error message).
 * Throws TemplateError when the script does not parse or a placeholder escapes the analysis.
 */
export function evaluatedPlaceholders(script: string): Map<number, string> {
  const regions: Region[] = []
  const bindings = new Map<string, Array<Span | string>>()
  const seen = new Set<number>()
  /** Command and process substitutions: their output is data from anywhere. */
  const outputs: Span[] = []
  /** Set when the data flow is beyond following: then every placeholder must be an integer. */
  let everywhere: string | undefined
  const fail = (why: string): never => {
    throw new TemplateError(`Cannot tell whether bash evaluates a placeholder in this command (${why}).`)
  }
  const region = (span: Span | undefined, why: string, kind: Region["kind"] = "value") => {
    if (span) regions.push({ pos: span.pos, end: span.end, why, kind })
  }
  const bind = (name: string, source: Span | string) => {
    bindings.set(name, [...(bindings.get(name) ?? []), source])
  }

  const visit = (node: SyntaxNode): void => {
    switch (node.type) {
      case "Script":
        if (node.errors?.length) fail(`not valid bash: ${node.errors[0]!.message}`)
        break
      case "ArithmeticCommand":
        region(node, "inside (( ))")
        break
      case "ArithmeticExpansion":
        region(node, script.startsWith("$[", node.pos) ? "inside $[ ]" : "inside $(( ))")
        break
      case "ArithmeticFor":
        region({ pos: node.pos, end: node.body.pos }, "inside for (( ))")
        break
      case "TestBinary":
        if (ARITH_TESTS.has(node.operator)) {
          region(node.left, `as an operand of [[ ${node.operator} ]]`)
          region(node.right, `as an operand of [[ ${node.operator} ]]`)
        }
        break
      case "TestUnary":
        if (node.operator === "-v" || node.operator === "-R")
          region(node.operand, `as the operand of [[ ${node.operator} ]]`, "name")
        break
      case "ParameterExpansion":
        if (node.parameter.startsWith(PROBE)) seen.add(node.parameterPos)
        if (node.prefix === "!")
          region({ pos: node.parameterPos, end: node.parameterEnd }, "as the name of an indirect expansion")
        // `@P` expands the value as a prompt string, command substitutions included.
        if (node.operation?.type === "Transform" && node.operation.operand.text === "P")
          region({ pos: node.parameterPos, end: node.parameterEnd }, "in a prompt expansion (@P)")
        region(node.index, "in an array subscript")
        // `${v:=x}` assigns x to v.
        if (node.operation?.type === "Default" && node.operation.operator.endsWith("="))
          bind(node.parameter, node.operation.operand)
        if (node.operation?.type === "Slice") {
          region(node.operation.offset, "in a substring offset")
          region(node.operation.length, "in a substring length")
        }
        break
      case "CommandExpansion":
      case "ArithmeticCommandExpansion":
      case "ProcessSubstitution":
        outputs.push(node)
        break
      case "SimpleExpansion":
        if (node.text.startsWith(PROBE, 1)) seen.add(node.pos + 1)
        break
      case "Assignment":
        region(node.index, "in an array subscript")
        if (node.value.type === "ArrayValue") {
          for (const element of node.value.elements) {
            // `[k]=v`: the key is a subscript; cut at the last `]=` so the key is never cut short.
            const close = element.text.lastIndexOf("]=")
            if (element.text.startsWith("[") && close > 0)
              region({ pos: element.pos, end: element.pos + close }, "in an array subscript")
          }
        }
        bind(node.name, node.value)
        break
      case "For":
      case "Select":
        bind(
          node.name.text,
          node.wordlist?.length ? spanOf(node.wordlist) : "set from the positional parameters",
        )
        break
      case "Command":
        command(node)
        break
    }
    forEachChild(node, visit)
  }

  const command = (node: Command): void => {
    const args = node.suffix.filter((a): a is Word => a.type === "Word")
    let name = node.name && literal(node.name)
    // `builtin let …` and `command eval …` run the builtin named next.
    while ((name === "builtin" || name === "command") && args[0]) name = literal(args.shift()!)
    if (node.name && name === undefined) {
      // `$cmd args` may be `eval`, `let` or `declare`.
      for (const arg of args) region(arg, "as an argument of a command whose name is not literal")
      return
    }
    if (name === undefined) return
    if (CODE_BUILTINS.has(name)) for (const arg of args) region(arg, `as an argument of ${name}`)
    if (NAME_BUILTINS.has(name)) for (const arg of args) region(arg, `as an argument of ${name}`, "name")
    if (READERS.has(name)) {
      for (const arg of args) if (/^[A-Za-z_]\w*$/.test(arg.text)) bind(arg.text, `set by ${name}`)
      for (const implicit of ["REPLY", "MAPFILE", "OPTARG"]) bind(implicit, `set by ${name}`)
    }
    if (name === "alias") everywhere ??= "in a command that defines an alias (it may stand for eval)"
    if (name === "[" || name === "test") {
      args.forEach((arg, i) => {
        // A value standing where an operator may be could itself be `-v` (allow_leading_dash).
        const op = literal(arg)
        if (op === "-v" || op === "-R") region(args[i + 1], `as the operand of ${name} ${op}`, "name")
        else if (op === undefined) region(args[i + 1], `after a value in ${name} (it may be -v)`, "name")
      })
    }
    // `bash -c`, also behind `timeout`, `env`, `sudo`: the word after -c is a script. A shell
    // without -c reads its script from input, and xargs or find writes values into the script.
    const words = [name, ...args.map(literal)]
    const shell = words.findIndex((w) => SHELLS.has(w?.split("/").at(-1) ?? ""))
    if (shell >= 0) {
      const rest = args.slice(shell)
      const flag = rest.findIndex((arg) => /^-[A-Za-z]*c[A-Za-z]*$/.test(arg.text))
      const script = flag < 0 ? undefined : rest.slice(flag + 1).find((arg) => !arg.text.startsWith("-"))
      if (!script || words.slice(0, shell).some((w) => w && FEEDERS.has(w)))
        everywhere ??= `in a command that runs ${words[shell]} on a script made from data`
      region(script, "in the script of a shell's -c")
    }
    if (name === "printf") {
      for (const [i, arg] of args.entries()) {
        if (arg.text === "--" || !arg.text.startsWith("-")) break
        const target = arg.text === "-v" ? args[i + 1] : arg.text.startsWith("-v") ? arg : undefined
        region(target, "as the name after printf -v", "name")
        if (target) bind(target.text.replace(/^-v/, ""), "set by printf -v")
      }
    }
    if (!DECLARERS.has(name)) return
    for (const arg of args) {
      const flags = literal(arg)
      if (flags !== undefined && /^[-+]/.test(flags)) {
        if (/[in]/.test(flags))
          everywhere ??= `in a command that uses ${name} ${flags} (bash evaluates what is assigned to such a variable)`
        continue
      }
      // A word that is not an assignment (`"$v"=1`, `$v`) is the name of a variable.
      region(arg, `as a variable name given to ${name}`, "name")
    }
  }

  visit(parse(script))

  const probes = [...script.matchAll(PROBE_RE)].map((m) => ({ index: Number(m[1]), pos: m.index }))
  for (const probe of probes) if (!seen.has(probe.pos)) fail("the parser did not read it as an expansion")

  // A name bash evaluates evaluates that variable's value in turn: follow its assignments.
  const done = new Set<string>()
  const follow = (name: string, why: string) => {
    if (name.startsWith(PROBE) || done.has(name)) return
    done.add(name)
    if (name.startsWith("DUPIN_P_")) fail(`${name} is read directly ${why}`)
    for (const source of bindings.get(name) ?? []) {
      const via = `in a value assigned to ${name}, which bash evaluates ${why}`
      if (typeof source !== "string") region(source, via)
      else if (probes.length > 0) fail(`${name} is ${source} and evaluated ${why}`)
    }
  }
  for (const name of EXPANDED) follow(name, "as a prompt or a startup file")
  for (let r = 0; r < regions.length; r++) {
    const { pos, end, why, kind } = regions[r]!
    const text = script.slice(pos, end)
    // `$1` may come from `set --` or any function call, a command's output from a file or pipe
    // the value went through: too far to follow.
    if (/\$\{?[0-9@*]/.test(text)) everywhere ??= `in a command that evaluates a positional parameter ${why}`
    if (outputs.some((o) => o.pos >= pos && o.end <= end))
      everywhere ??= `in a command that evaluates a command's output ${why}`
    for (const name of evaluatedNames(text, kind)) follow(name, why)
  }

  const reasons = new Map<number, string>()
  for (const probe of probes) {
    const hit = regions.find((r) => probe.pos >= r.pos && probe.pos < r.end)
    const why = hit?.why ?? everywhere
    if (why && !reasons.has(probe.index)) reasons.set(probe.index, why)
  }
  return reasons
}

/** Variables whose values bash reads as expressions or names when it evaluates `text`. */
function evaluatedNames(text: string, kind: Region["kind"]): string[] {
  if (kind === "value") return [...text.matchAll(IDENT)].map((m) => m[0])
  // A name's own identifier is assigned, not read; its subscript and any `$v` in it are read.
  const subscripts = [...text.matchAll(/\[[^\]]*\]/g)].flatMap((m) =>
    [...m[0].matchAll(IDENT)].map((n) => n[0]),
  )
  return [...subscripts, ...[...text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!)]
}

function spanOf(words: readonly Word[]): Span {
  return { pos: words[0]!.pos, end: words.at(-1)!.end }
}

/** The word's text when it is plain literal text (no quotes, no expansions). */
function literal(word: Word): string | undefined {
  return (word.parts ?? []).every((p) => p.type === "Literal") ? word.value : undefined
}
