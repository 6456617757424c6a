import { awkProgramVerdict } from "./rules/awk-program.ts"
import { programTexts } from "./rules/filters.ts"
import { sedScriptProblem } from "./rules/sed-script.ts"
import { INTERPRETERS, isWrapper, SHELLS, wrappedCommand } from "./rules/wrappers.ts"
import { MAX_DEPTH } from "./walk.ts"

/**
 * Programs besides shells that run their input as commands (finding R10): `sed e` and `s///e`
 * run the pattern space, awk runs `system($0)`, `print | $0` and `$0 | getline`, `sort
 * --compress-program=sh` feeds its data to that program, `xargs sh -c` makes its input the script,
 * perl/python code that calls `system`/`exec`/backticks on what it reads. policy.ts treats them
 * like `| sh`: the text a plain echo or printf prints is classified as the script it becomes, and
 * any other producer is refused, since neither dupin nor the person approving can read it.
 * Returns how the stage runs its input (for the reason), or undefined.
 */
export function inputExecutor(argv: readonly string[], depth = 0): string | undefined {
  const [program, ...args] = argv
  const name = program?.slice(program.lastIndexOf("/") + 1)
  if (name === undefined || depth > MAX_DEPTH) return undefined
  // A program read from a file (`sed -f`, `awk -f`, gawk `-E`/`-i`/`-l`) may do anything with its input.
  if ((name === "sed" || name === "gsed") && args.some((a) => /^(-[^-]*f|--fi)/.test(a))) return `${name} -f`
  if (/^[gmn]?awk$/.test(name) && args.some((a) => /^(-[^-]*[fEil]|--(fi|ex|inc|lo))/.test(a)))
    return `${name} -f`
  if (name === "sed" || name === "gsed") {
    // An unreadable script may hold an `e` anywhere; a readable one only where the grammar says.
    const script = programTexts(name, args).join("\n")
    const problem = sedScriptProblem(script)
    if (problem === undefined) return undefined
    return /"e" command|s\/\/\/e flag/.test(problem) || SED_E_COMMAND.test(script) || SED_E_FLAG.test(script)
      ? "sed e"
      : undefined
  }
  if (name === "awk" || name === "gawk" || name === "mawk" || name === "nawk") {
    const [text = ""] = programTexts(name === "nawk" ? "awk" : name, args)
    // A pipe to or from a computed command (`print | $0`), not `||` or `print | "sort"`.
    const runs = /system\s*\(|getline|(^|[^|])\|&?\s*[^"\s|]|@(load|include|namespace)/.test(text)
    return runs && awkProgramVerdict(text).decision !== "allow" ? `${name} system/pipes` : undefined
  }
  if (name === "sort") return args.some((a) => /^--co/.test(a)) ? "sort --compress-program" : undefined
  if (INTERPRETERS.has(name))
    return args.some((a) => RUNS_TEXT.test(a)) ? `${name} code that runs commands` : undefined
  if (!isWrapper(name)) return undefined
  const inner = wrappedCommand(name, args)
  if (inner.kind === "argv") {
    const innerName = inner.argv[0]?.slice(inner.argv[0].lastIndexOf("/") + 1) ?? ""
    // `xargs sh -c`: the input lines become the script's words.
    if (inner.appendable && SHELLS.has(innerName)) return `${name} ${innerName}`
    return inputExecutor(inner.argv, depth + 1)
  }
  if (inner.kind === "unknown")
    return inner.args
      .map((_, i) => inputExecutor(inner.args.slice(i), depth + 1))
      .find((n) => n !== undefined)
  return undefined
}

/**
 * Where an unreadable sed script may still run its input: an `e` in command position (after a
 * separator, a brace, `!` or an address: `1e`, `$e`, `/x/e`), or an `s` command whose flags hold `e`.
 * Read loosely on purpose: a false match costs a refusal of data from a program dupin cannot read.
 */
const SED_E_COMMAND = /(^|[;\n{}!0-9$/])\s*e(\s|;|}|$)/
const SED_E_FLAG = /s([^\\\n])(?:\\.|(?!\1)[^\\\n])*\1(?:\\.|(?!\1)[^\\\n])*\1[^;\n}]*e/

/** Code that starts programs: perl/ruby `system`, `exec`, backticks, `qx`, `open` pipes, python `os`/`subprocess`. */
const RUNS_TEXT = /system|exec|popen|spawn|subprocess|`|qx|\bopen\b|\bos\.|eval/
