/**
 * Placeholders inside text that a second interpreter parses (finding R3). bash passes a value on
 * as one word, but sed, awk and jq read their program argument as code (`sed e`, awk `system()`),
 * perl and python read theirs, `ssh` and `watch` hand their words to a shell, `env -S` splits its
 * string into a command line. Quoting cannot help there: the value becomes part of the program.
 * template.ts lets a placeholder into such an argument only when the parameter is an integer, or
 * when the argument is the placeholder alone and the parameter declares that program
 * (`program: awk`), so the grammar checks the whole text at every call.
 */
import { type Command, forEachChild, parse, type SyntaxNode, type Word } from "unbash"

/** Interpreters whose program text a parameter may carry whole (`program: <kind>`). */
const KINDS: Record<string, "awk" | "sed" | "jq"> = {
  awk: "awk",
  gawk: "awk",
  mawk: "awk",
  nawk: "awk",
  sed: "sed",
  gsed: "sed",
  jq: "jq",
  gojq: "jq",
  jaq: "jq",
}
/** Interpreters whose every argument is, or may reach, code: no parameter goes there. */
const CODE_EVERYWHERE = new Set([
  ...["perl", "python", "python2", "python3", "ruby", "node", "nodejs", "bun", "deno", "php", "lua"],
  ...["tclsh", "wish", "expect", "Rscript", "osascript", "pwsh", "powershell", "groovy", "jshell"],
  // A remote or delegated shell joins its words into one script.
  ...["ssh", "watch", "parallel", "su", "runuser", "script", "tmux", "screen", "busybox", "toybox"],
  ...["yq", "gdb", "vim", "vi", "nvim", "emacs", "ed", "ex", "dc", "bc", "m4", "make"],
])

/** Options whose value is program text (or a file of it), per interpreter kind. */
const PROGRAM_OPTIONS = {
  sed: { short: "ef", long: ["--expression", "--file"], data: "l", dataLong: ["--line-length"] },
  awk: {
    short: "efEil",
    long: ["--file", "--source", "--exec", "--include", "--load"],
    data: "Fv",
    dataLong: ["--field-separator", "--assign"],
  },
  jq: { short: "fL", long: ["--from-file", "--library-path"], data: "", dataLong: ["--indent"] },
} as const
/** Options whose value is the program text itself (not a file of it): a whole program may go there. */
const TEXT_OPTIONS = new Set(["--expression", "--source"])
/** jq options that take a name and then data (`--arg n v`). */
const JQ_PAIRS = new Set(["--arg", "--argjson", "--slurpfile", "--rawfile"])

const PROBE_RE = /_dupin_probe_(\d+)/g
const HAS_PROBE = /_dupin_probe_\d/
const REFERENCE = /\$\{_dupin_probe_\d+(:\+"\$_dupin_probe_\d+")?\}/g

export type Interpreted = {
  /** The interpreter (`awk`, `perl`, `env -S`). */
  by: string
  /** The `program:` kind that would let a whole-argument placeholder in. */
  kind: "awk" | "sed" | "jq" | undefined
  /** The argument is the placeholder alone. */
  whole: boolean
}

/** For each placeholder index inside program text of another interpreter: which, and how. */
export function interpretedPlaceholders(script: string): Map<number, Interpreted> {
  const found = new Map<number, Interpreted>()
  const mark = (word: Word | undefined, by: string, kind?: "awk" | "sed" | "jq") => {
    if (!word) return
    const probes = new Set([...word.text.matchAll(PROBE_RE)].map((m) => Number(m[1])))
    const whole = probes.size === 1 && word.text.replace(REFERENCE, "").replace(/['"]/g, "") === ""
    for (const index of probes) if (!found.has(index)) found.set(index, { by, kind, whole })
  }
  const visit = (node: SyntaxNode): void => {
    if (node.type === "Command") command(node, mark)
    forEachChild(node, visit)
  }
  visit(parse(script))
  return found
}

type Mark = (word: Word | undefined, by: string, kind?: "awk" | "sed" | "jq") => void

function command(node: Command, mark: Mark): void {
  const words = [node.name, ...node.suffix.filter((a): a is Word => a.type === "Word")].filter(
    (w): w is Word => w !== undefined,
  )
  // A value as the command name runs whatever program it names.
  if (node.name && HAS_PROBE.test(node.name.text)) mark(node.name, "bash as a command name")
  // Wrappers (`timeout 5 awk`, `xargs sed`, `find -exec perl`) run the interpreter named later.
  for (let i = 0; i < words.length; i++) {
    const name = literal(words[i]!)?.split("/").at(-1)
    if (name === undefined) continue
    const args = words.slice(i + 1)
    const kind = KINDS[name]
    if (kind) interpreterArgs(name, kind, args, mark)
    else if (CODE_EVERYWHERE.has(name)) for (const arg of args) mark(arg, name)
    else if (name === "env") envSplit(args, mark)
    else if (name === "sudo" || name === "doas") {
      // `sudo -s`/`-i` joins the words after it into a shell command line.
      if (args.some((a) => /^-[A-Za-z]*[si]/.test(a.text) || /^--(shell|login)$/.test(a.text)))
        for (const arg of args) mark(arg, `${name} -s`)
    } else if (name === "flock" || name === "find") {
      args.forEach((arg, j) => {
        if (/^-(c|-command|execdir|exec|ok|okdir)$/.test(arg.text)) mark(args[j + 1], `${name} ${arg.text}`)
      })
    }
  }
}

/** `env -S "…"` / `--split-string=…` splits the string into a command line of its own. */
function envSplit(args: readonly Word[], mark: Mark): void {
  args.forEach((arg, j) => {
    if (/^(-[A-Za-z]*S|--split-string)$/.test(arg.text)) mark(args[j + 1], "env -S")
    else if (/^(-[A-Za-z]*S.|--split-string=)/.test(arg.text)) mark(arg, "env -S")
  })
}

/** sed, awk and jq: which arguments are program text, by each one's option grammar. */
function interpreterArgs(name: string, kind: "awk" | "sed" | "jq", args: readonly Word[], mark: Mark): void {
  const spec = PROGRAM_OPTIONS[kind]
  let programGiven = false
  let operands = false
  for (let j = 0; j < args.length; j++) {
    const arg = args[j]!
    const text = arg.text
    if (operands || text === "-" || !text.startsWith("-")) {
      // The first operand is the program unless an option gave it; after it come files, data.
      if (!programGiven) mark(arg, name, kind)
      programGiven = true
      if (kind === "awk") operands = true
      continue
    }
    if (text === "--") {
      operands = true
      continue
    }
    // A value inside an option word may spell another option.
    if (HAS_PROBE.test(text)) {
      mark(arg, name)
      continue
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=")
      const option = eq === -1 ? text : text.slice(0, eq)
      const program = spec.long.some((l) => l.startsWith(option) && option.length > 2)
      if (kind === "jq" && JQ_PAIRS.has(option)) j += 2
      else if (kind === "jq" && (option === "--args" || option === "--jsonargs")) {
        if (!programGiven) mark(args[j + 1], name, kind)
        return
      } else if (eq === -1 && (program || (spec.dataLong as readonly string[]).includes(option))) {
        if (program) mark(args[j + 1], name, TEXT_OPTIONS.has(option) ? kind : undefined)
        j++
      }
      if (program) programGiven = true
      continue
    }
    for (let c = 1; c < text.length; c++) {
      const letter = text[c]!
      if (!spec.short.includes(letter) && !spec.data.includes(letter)) continue
      // The value is the rest of the word or the next word.
      if (c === text.length - 1) j++
      if (spec.short.includes(letter)) {
        if (c === text.length - 1) mark(args[j], name, letter === "e" ? kind : undefined)
        programGiven = true
      }
      break
    }
  }
}

/** The word's text when it is plain literal text (no quotes, no expansions). */
function literal(word: Word): string | undefined {
  return (word.parts ?? []).every((p) => p.type === "Literal") ? word.value : undefined
}

/** Why a placeholder may not stand inside another interpreter's program, and the fix. */
export function interpretedMessage(
  name: string,
  by: string,
  kind: string | undefined,
  whole: boolean,
): string {
  const fix =
    kind === undefined
      ? "declare it `type: integer`, or pass the value another way (a file, an environment variable the program reads)"
      : whole
        ? `declare \`program: ${kind}\` on it (the ${kind} grammar then checks each value) or \`type: integer\``
        : `make the whole ${kind} program the parameter's value and declare \`program: ${kind}\`, or declare \`type: integer\``
  return (
    `Parameter "${name}" is placed inside text that ${by} parses as code (a value like ` +
    `\`x/p;1e cmd\` or \`" || system("cmd") || "\` would run cmd); ${fix}.`
  )
}
