import { allow, approve, type Verdict, worst } from "../verdict.ts"
import { jqFilterVerdict } from "./jq-filter.ts"
import type { ProgramRule } from "./program.ts"

/** jq has its own option syntax (`--arg NAME VALUE` takes two words), so it gets its own scanner. */
function classifyJq(args: readonly string[]): Verdict {
  const flags = new Set("rjcnseSaCMRhV0")
  const oneValue = new Set(["--indent"])
  // --rawfile/--slurpfile read a file into a variable: a read, with the path vetted like any other.
  const twoValues = new Set(["--arg", "--argjson", "--rawfile", "--slurpfile"])
  const longFlags = new Set([
    "--raw-output",
    "--join-output",
    "--compact-output",
    "--null-input",
    "--slurp",
    "--exit-status",
    "--sort-keys",
    "--ascii-output",
    "--color-output",
    "--monochrome-output",
    "--raw-input",
    "--tab",
    "--seq",
    "--stream",
    "--stream-errors",
    "--raw-output0",
    "--help",
    "--version",
    "--unbuffered",
  ])
  const operands: string[] = []
  let restAreArgs = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith("-") || arg === "-") {
      // After --args/--jsonargs, positionals past the program are values, not files.
      if (!(restAreArgs && operands.length > 0)) operands.push(arg)
      continue
    }
    if (arg === "--args" || arg === "--jsonargs") {
      restAreArgs = true
      continue
    }
    if (twoValues.has(arg)) {
      i += 2
      continue
    }
    if (oneValue.has(arg)) {
      i += 1
      continue
    }
    if (longFlags.has(arg)) continue
    if (/^-[^-]+$/.test(arg) && [...arg.slice(1)].every((c) => flags.has(c))) continue
    // -f/--from-file reads the program from a file, -L adds a module search path.
    return approve(`jq ${arg} is not known to be safe (it may load code from files)`)
  }
  const program = operands[0]
  if (program === undefined) return approve("jq without a program")
  return worst(allow("jq only reads"), jqFilterVerdict(program))
}

export const JQ: Record<string, ProgramRule> = {
  jq: {
    classify: classifyJq,
    reads: "files",
    examples: {
      allow: [
        "jq -r --arg ns x '.items[] | select(.ns == $ns)'",
        "jq . /tmp/file.json",
        "jq -n --args '$ARGS' a b",
      ],
      ask: ["jq -L /tmp 'import \"x\" as x; .'", "jq -f /tmp/prog.jq"],
      deny: ["jq -n '$ENV'", "jq -n 'env.HOME'"],
    },
  },
}
