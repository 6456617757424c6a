import { approve, deny, type Verdict } from "../verdict.ts"

/**
 * Checks an awk program for every way out of the text stream: `system()`, pipes to or from
 * commands (`print | "sh"`, `"cmd" | getline`, gawk `|&`), output redirection (`print > "file"`),
 * `getline` (reads files), `ARGV`/`ARGC` (adds files to read), `@load`/`@include` and indirect
 * calls (gawk), and `ENVIRON` (the process environment). Returns undefined when none is present.
 */
export function awkProgramVerdict(program: string): Verdict | undefined {
  if (/\bENVIRON\b/.test(program)) return deny("awk ENVIRON reads the process environment")
  // Checked on the raw text, strings included: a name inside a string is harmless but rare.
  const banned = program.match(/\b(system|getline|ARGV|ARGC)\b/)
  if (banned) return approve(`awk ${banned[1]} can run commands or read files`)
  if (program.includes("@")) return approve("gawk @-directives and indirect calls can load code")
  const structural = scanStructure(program)
  return structural ? approve(`awk ${structural}`) : undefined
}

/**
 * Finds `|` and print redirections outside strings and regex literals. A `/` starts a regex only
 * where awk cannot read it as division (after an operator or an opening bracket); anywhere else
 * it is division, so a misread can only make the scan stricter, never hide code.
 */
function scanStructure(p: string): string | undefined {
  let depth = 0
  let printDepth: number | undefined
  let prev = "\n"
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!
    if (c === " " || c === "\t" || (c === "\\" && p[i + 1] === "\n")) {
      if (c === "\\") i++
      continue
    }
    if (c === "#") {
      while (i < p.length && p[i] !== "\n") i++
      prev = "\n"
      continue
    }
    if (c === '"') {
      i = skipDelimited(p, i + 1, '"')
      prev = "a"
      continue
    }
    if (c === "/" && REGEX_CONTEXT.has(prev)) {
      i = skipDelimited(p, i + 1, "/")
      prev = "a"
      continue
    }
    if (c === "|") {
      if (p[i + 1] !== "|") return "pipes run commands"
      i++
      prev = "|"
      continue
    }
    if (c === ">" && printDepth === depth) return "output redirection writes files"
    if (/[A-Za-z_]/.test(c)) {
      let j = i
      while (j < p.length && /[A-Za-z0-9_]/.test(p[j]!)) j++
      const word = p.slice(i, j)
      i = j - 1
      if (word === "print" || word === "printf") printDepth = depth
      prev = KEYWORDS.has(word) ? "(" : "a"
      continue
    }
    if (c === "(" || c === "[") depth++
    if (c === ")" || c === "]") depth--
    // Not at a newline: `print a,<newline> b > "f"` is still one print statement.
    if (c === ";" || c === "{" || c === "}") printDepth = undefined
    prev = /[0-9.)\]$]/.test(c) ? (c === "$" ? "(" : "a") : c
  }
  return undefined
}

/** Characters after which awk expects an operand, so `/` opens a regex. */
const REGEX_CONTEXT = new Set(["\n", "(", ",", "{", "}", ";", "!", "~", "&", "|", "=", "<", ">", "?", ":"])
const KEYWORDS = new Set(["print", "printf", "return", "in", "if", "while", "for", "do", "else"])

function skipDelimited(p: string, from: number, delim: string): number {
  for (let i = from; i < p.length; i++) {
    if (p[i] === "\\") i++
    else if (p[i] === delim) return i
  }
  return p.length
}
