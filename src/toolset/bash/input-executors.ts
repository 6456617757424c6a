import { ruleFor } from "./rules/registry.ts"
import { wrappedCommand } from "./rules/wrappers.ts"
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
  const rule = ruleFor(name)
  // sed, awk, sort, interpreters: each rule knows how its program runs its input.
  if (rule?.runsInput) return rule.runsInput(args)
  if (!rule?.wraps) return undefined
  const inner = wrappedCommand(rule.wraps, args)
  if (inner.kind === "argv") {
    const innerName = inner.argv[0]?.slice(inner.argv[0].lastIndexOf("/") + 1) ?? ""
    // `xargs sh -c`: the input lines become the script's words.
    if (inner.appendable && ruleFor(innerName)?.runs === "script") return `${name} ${innerName}`
    return inputExecutor(inner.argv, depth + 1)
  }
  if (inner.kind === "unknown")
    return inner.args
      .map((_, i) => inputExecutor(inner.args.slice(i), depth + 1))
      .find((n) => n !== undefined)
  return undefined
}
