import type { ProgramRule } from "./program.ts"

/**
 * Shells and interpreters. A shell's script after `-c` is parsed and classified like a command
 * line of its own; a shell without one reads its script from its input, which the policy checks
 * where that input comes from. Interpreters and evaluators run code the policy cannot see through:
 * they always need approval, and code of theirs that runs commands (`system`, backticks) makes
 * them run their input like a shell.
 */
const shell = (name: string, scriptArgument = shellScript): ProgramRule => ({
  runs: "script",
  scriptArgument,
  examples: {
    ask: [`${name} -c uptime`, `${name} -c 'kubectl get pods'`],
    deny: [`${name} -c 'rm -r /tmp/x'`],
  },
})

export const SHELLS: Record<string, ProgramRule> = {
  ...Object.fromEntries(
    ["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "csh", "tcsh"].map((name) => [
      name,
      shell(name),
    ]),
  ),
  su: shell("su", suScript),
}

/** Code that starts programs: perl/ruby `system`, `exec`, backticks, `qx`, `open` pipes, python `os`/`subprocess`. */
const RUNS_TEXT = /system|exec|popen|spawn|subprocess|`|qx|\bopen\b|\bos\.|eval/

const interpreter = (name: string): ProgramRule => ({
  runs: "code",
  runsInput: (args) => (args.some((a) => RUNS_TEXT.test(a)) ? `${name} code that runs commands` : undefined),
  examples: { ask: [`${name} /tmp/script`], deny: [`echo 'rm -r /tmp/x' | ${name} -e 'system $_'`] },
})

export const INTERPRETERS: Record<string, ProgramRule> = {
  ...Object.fromEntries(
    (
      "eval source . python python2 python3 perl ruby node nodejs bun deno php lua tclsh wish Rscript " +
      "java jshell expect osascript pwsh powershell"
    )
      .split(" ")
      .map((name) => [name, interpreter(name)]),
  ),
  // gdb runs code of its own and, like a wrapper, the program it is given (`gdb -ex 'shell …'`).
  gdb: {
    ...interpreter("gdb"),
    wraps: "opaque",
    examples: { ask: ["gdb uptime"], deny: ["gdb rm -r /tmp/x"] },
  },
}

/**
 * The script a shell runs: `-c` may be grouped (`-lc`, `-ec`) and the script is the first
 * operand after the options (`bash -c -- 'cmd'`, `bash -c -x 'cmd'`). Undefined when the shell
 * reads a script file or stdin.
 */
function shellScript(args: readonly string[]): string | undefined {
  let hasC = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--" || arg === "-") return hasC ? args[i + 1] : undefined
    if (/^[-+]o$/.test(arg) || arg === "-O" || arg === "+O" || arg === "--rcfile" || arg === "--init-file") {
      i++
      continue
    }
    if (/^[-+][A-Za-z]+$/.test(arg)) {
      if (arg.startsWith("-") && arg.includes("c")) hasC = true
      continue
    }
    if (arg.startsWith("--")) continue
    return hasC ? arg : undefined
  }
  return undefined
}

/** `su -c CMD` takes the script as the option's value (`-cCMD`, `-lcCMD`, `--command=CMD`). */
function suScript(args: readonly string[]): string | undefined {
  const at = args.findIndex((a) => /^(-c|--command)(=|$)/.test(a) || /^-[^-]*c/.test(a))
  if (at === -1) return undefined
  const arg = args[at]!
  if (arg.startsWith("--command=")) return arg.slice(10)
  const attached = arg.startsWith("--") ? "" : arg.slice(arg.indexOf("c") + 1)
  return attached || args[at + 1]
}
