/**
 * The shell YAML commands run in: bash (HolmesGPT's templates assume it), or /bin/sh on a host
 * without bash (minimal containers), looked up on the tool environment's PATH.
 */
export function shellArgv(script: string, env: Record<string, string>): string[] {
  const path = env.PATH ?? ""
  let shell = shells.get(path)
  if (shell === undefined) {
    shell = Bun.which("bash", { PATH: path }) ?? "/bin/sh"
    // Every YAML tool call asked again: ~1 % of the server's CPU under load (bench server-load).
    if (shells.size < 64) shells.set(path, shell)
  }
  return [shell, "-c", script]
}

/** The shell per tool PATH; a PATH names the same bash for the life of the process. */
const shells = new Map<string, string>()

/**
 * The argv a YAML command line runs as: the words themselves when the line is one plain command
 * (bash would do nothing but split it and look the program up), else the shell. A shell start is
 * ~1 ms of CPU and a process per call, and most YAML tools are `kubectl get pods -n "$DUPIN_P_ns"`.
 *
 * Plain: words of safe characters, `'literal'` and `"literal"` parts and `"$DUPIN_P_x"` references
 * to this call's own values (quoted, so bash neither splits nor globs them), on one line; the
 * program is no assignment, keyword or builtin (but `true`, `false` and `echo`, whose programs
 * behave the same, unless asked for `--help`/`--version`) and is on PATH, so a missing program
 * still gets bash's own "command not found".
 */
export function commandArgv(script: string, env: Record<string, string>): string[] {
  return plainWords(script, env) ?? shellArgv(script, env)
}

function plainWords(script: string, env: Record<string, string>): string[] | undefined {
  const line = script.trim()
  if (line === "" || line.length > 4096) return undefined
  const words: string[] = []
  for (const token of line.split(/[ \t]+/)) {
    if (!WORD.test(token)) return undefined
    let word = ""
    for (const [, plain, single, double, bare, braced] of token.matchAll(PART)) {
      const name = bare ?? braced
      if (name !== undefined) {
        const value = env[name]
        if (value === undefined || !name.startsWith(PLAIN_VARIABLE)) return undefined
        word += value
      } else word += plain ?? single ?? double ?? ""
    }
    words.push(word)
  }
  const program = words[0]
  if (!program || !/^[A-Za-z0-9_./+-]+$/.test(program) || !BARE.test(line.slice(0, program.length)))
    return undefined
  if (program.includes("=") || SHELL_WORDS.has(program)) return undefined
  if (SAME_AS_BUILTIN.has(program) && words.some((w) => w === "--help" || w === "--version")) return undefined
  if (!program.includes("/") && !onPath(program, env.PATH ?? "")) return undefined
  return words
}

/** YAML templates hand values over as `DUPIN_P_<name>` variables (tool/template.ts). */
const PLAIN_VARIABLE = "DUPIN_P_"
/** Characters bash gives no meaning to inside a word. */
const SAFE = "A-Za-z0-9_./:=,@%+-"
/** A quoted reference: `"$NAME"` or `"${NAME}"`. */
const REFERENCE = '"\\$(?:([A-Za-z_][A-Za-z0-9_]*)|\\{([A-Za-z_][A-Za-z0-9_]*)\\})"'
/** One word: safe characters, single-quoted literals, double-quoted safe text or a reference. */
const WORD = new RegExp(`^(?:[${SAFE}]+|'[^']*'|"[${SAFE}]*"|${REFERENCE})+$`)
const PART = new RegExp(`([${SAFE}]+)|'([^']*)'|"([${SAFE}]*)"|${REFERENCE}`, "g")
/** The program word written bare (no quotes: `'ls'` is fine for bash, but rare enough to leave). */
const BARE = /^[A-Za-z0-9_./+-]+$/
/** Bash keywords and builtins: bash runs these itself, not the program of that name. */
const SHELL_WORDS = new Set(
  (
    "if then else elif fi case esac for select while until do done in function time coproc " +
    "alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs " +
    "disown enable eval exec exit export fc fg getopts hash help history jobs kill let local " +
    "logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source " +
    "suspend test times trap type typeset ulimit umask unalias unset wait ["
  ).split(" "),
)
/** Builtins whose programs (coreutils) print the same for every argument but these two. */
const SAME_AS_BUILTIN = new Set(["true", "false", "echo"])

/** Programs found on a PATH (positive answers only: a program installed later is found then). */
const found = new Map<string, true>()
function onPath(program: string, path: string): boolean {
  const key = `${path}\0${program}`
  if (found.has(key)) return true
  if (!Bun.which(program, { PATH: path })) return false
  if (found.size < 256) found.set(key, true)
  return true
}

/** The program a shell command line starts, skipping `VAR=value` prefixes; undefined if unclear. */
export function firstProgram(command: string): string | undefined {
  for (const word of command.trim().split(/\s+/)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue
    return /^[A-Za-z0-9_./+-]+$/.test(word) ? word : undefined
  }
  return undefined
}
