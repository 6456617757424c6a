import { hasOption, scanOptions } from "../options.ts"
import { awkProgramVerdict } from "./awk-program.ts"
import { getopt } from "./program.ts"
import { sedScriptProblem } from "./sed-script.ts"

/**
 * What the policy reads from a sed or awk command line besides its verdict: the program texts,
 * the files they write (`w FILE`, `print > "FILE"`) and whether they run their input as commands.
 * Each is read by the same grammar as the verdict.
 */
export const SED_GRAMMAR = getopt("nErzsue:f:l:i::", [
  ...["expression=", "file=", "line-length=", "in-place?", "quiet", "silent", "regexp-extended"],
  ...["separate", "unbuffered", "null-data", "posix", "debug", "sandbox", "follow-symlinks"],
  ...["help", "version"],
])

export const AWK_GRAMMAR = getopt("F:v:", ["field-separator=", "assign=", "sandbox"], { stopAtOperand: true })

/** sed's scripts: its `-e` values, or its first operand; every argument when unreadable. */
export function sedTexts(args: readonly string[]): readonly string[] {
  const scan = scanOptions(args, SED_GRAMMAR)
  if (!scan.ok) return args
  const scripts = scan.options
    .filter((o) => o.name === "-e" || o.name === "--expression")
    .map((o) => o.value ?? "")
  return scripts.length > 0 ? scripts : scan.operands.slice(0, 1)
}

/** awk's program: its first operand; every argument when unreadable. */
export function awkTexts(args: readonly string[]): readonly string[] {
  const scan = scanOptions(args, AWK_GRAMMAR)
  return scan.ok ? scan.operands.slice(0, 1) : args
}

/** Whether `sed` edits the files it names (`sed -i`, `--in-pl`); an unreadable option line counts as writing. */
export function sedWrites(args: readonly string[]): boolean {
  const scan = scanOptions(args, SED_GRAMMAR)
  return !scan.ok || hasOption(scan.options, "-i", "--in-place")
}

/**
 * Files a sed or awk program text writes: sed's `w FILE` command and `s///w FILE` flag, awk's
 * `print > "FILE"` and `| "cmd"`. Conservative: every word of a program text that has a write
 * construct counts, so the policy can refuse the ones under /etc even when a human approved.
 */
export const sedWritten = (args: readonly string[]): string[] => written(sedTexts(args), /[wW]/, SED_NAME)
export const awkWritten = (args: readonly string[]): string[] => written(awkTexts(args), /[>|]/, AWK_NAME)

function written(texts: readonly string[], construct: RegExp, wholeName: RegExp): string[] {
  return texts
    .filter((text) => construct.test(text))
    .flatMap((text) => [...text.split(/[\s;'"{}()<>|,]+|(?<![A-Za-z])[wW]/), ...wholeNames(text, wholeName)])
}

/** A sed `w`/`W` file name runs to the end of its line; an awk one is a quoted string. */
const SED_NAME = /(?<![A-Za-z])[wW][ \t]*([^\n]+)/g
const AWK_NAME = /"((?:[^"\\\n]|\\.)*)"/g
/** Whole names checked per program text; a text with more write-like spots than this is refused. */
const MAX_WHOLE_NAMES = 32

/**
 * The fragments above split a name wherever a `w` or a space could end one, so a name that holds
 * either (`/srv/etc-0wk/x` bind-mounted from /etc, `"/tmp/a b/x"`) was only seen in pieces, none
 * of which resolves to /etc. The whole candidates are checked too (overlapping matches included:
 * each `w` may be where the command is); past the cap the text counts as writing under /etc.
 */
function wholeNames(text: string, pattern: RegExp): string[] {
  const names = new Set<string>()
  let spots = 0
  for (let from = 0; from < text.length; ) {
    pattern.lastIndex = from
    const match = pattern.exec(text)
    if (!match) break
    if (++spots > MAX_WHOLE_NAMES) return ["/etc/(too many write-like spots to check)"]
    const name = match[1] ?? ""
    names.add(name).add(name.trimEnd())
    from = match.index + 1
  }
  return [...names]
}

/**
 * Whether sed runs its input as commands (finding R10): `e` and `s///e`, or a script from a file.
 * An unreadable script may hold an `e` anywhere; a readable one only where the grammar says.
 */
export function sedRunsInput(name: string, args: readonly string[]): string | undefined {
  if (args.some((a) => /^(-[^-]*f|--fi)/.test(a))) return `${name} -f`
  const script = sedTexts(args).join("\n")
  const problem = sedScriptProblem(script)
  if (problem === undefined) return undefined
  return /"e" command|s\/\/\/e flag/.test(problem) || SED_E_COMMAND.test(script) || SED_E_FLAG.test(script)
    ? "sed e"
    : undefined
}

/**
 * Where an unreadable sed script may still run its input: an `e` in command position (after a
 * separator, a brace, `!` or an address: `1e`, `$e`, `/x/e`), or an `s` command whose flags hold `e`.
 * Read loosely on purpose: a false match costs a refusal of data from a program dupin cannot read.
 */
const SED_E_COMMAND = /(^|[;\n{}!0-9$/])\s*e(\s|;|}|$)/
const SED_E_FLAG = /s([^\\\n])(?:\\.|(?!\1)[^\\\n])*\1(?:\\.|(?!\1)[^\\\n])*\1[^;\n}]*e/

/** Whether awk runs its input as commands: `system($0)`, `print | $0`, `$0 | getline`, a program from a file. */
export function awkRunsInput(name: string, args: readonly string[]): string | undefined {
  // A program read from a file (`awk -f`, gawk `-E`/`-i`/`-l`) may do anything with its input.
  if (args.some((a) => /^(-[^-]*[fEil]|--(fi|ex|inc|lo))/.test(a))) return `${name} -f`
  const [text = ""] = awkTexts(args)
  // A pipe to or from a computed command (`print | $0`), not `||` or `print | "sort"`.
  const runs = /system\s*\(|getline|(^|[^|])\|&?\s*[^"\s|]|@(load|include|namespace)/.test(text)
  return runs && awkProgramVerdict(text).decision !== "allow" ? `${name} system/pipes` : undefined
}
