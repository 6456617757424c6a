import type { Word, WordPart } from "unbash"

/**
 * Turns a parsed word into the one literal string bash would pass as an argument, or explains why
 * it cannot. Only plain text, single quotes, double quotes without expansions and backslash
 * escapes are literal; everything else would make bash compute the argument, and dupin never lets
 * a shell compute anything.
 */
export type LiteralResult = { ok: true; value: string } | { ok: false; reason: string }

export function literalWord(word: Word): LiteralResult {
  // A word without parts is unquoted text: the parser already folded escapes into `value`.
  const parts: readonly WordPart[] = word.parts ?? [
    { type: "Literal", pos: 0, end: 0, text: word.text, value: word.value },
  ]
  let value = ""
  for (const [index, part] of parts.entries()) {
    const problem = partProblem(part, index === 0)
    if (problem) return { ok: false, reason: `${problem} in ${quoteForMessage(word.text)}` }
    value += partValue(part)
  }
  return { ok: true, value }
}

function partProblem(part: WordPart, atStart: boolean): string | undefined {
  switch (part.type) {
    case "Literal":
      return unquotedProblem(part.text, atStart)
    case "SingleQuoted":
      return undefined
    case "DoubleQuoted":
      for (const child of part.parts) {
        if (child.type !== "Literal") return EXPANSION[child.type] ?? "an expansion"
        // Cross-check of the parser: an unescaped `$` or backtick inside double quotes is an
        // expansion in bash, whatever the parser made of it.
        if (hasUnescaped(child.text, DQ_SPECIAL)) return "a `$` or backtick inside double quotes"
      }
      return undefined
    default:
      return EXPANSION[part.type] ?? `unsupported syntax (${part.type})`
  }
}

function partValue(part: WordPart): string {
  if (part.type === "Literal" || part.type === "SingleQuoted") return part.value
  if (part.type === "DoubleQuoted")
    return part.parts.map((c) => (c.type === "Literal" ? c.value : "")).join("")
  return ""
}

const EXPANSION: Partial<Record<WordPart["type"], string>> = {
  SimpleExpansion: "a variable expansion ($NAME, $IFS…)",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text names the bash syntax
  ParameterExpansion: "a parameter expansion (${…})",
  CommandExpansion: "a command substitution ($(…) or `…`)",
  ArithmeticExpansion: "an arithmetic expansion ($((…)))",
  ProcessSubstitution: "a process substitution (<(…) or >(…))",
  Glob: "an unquoted glob (*, ?, […]); quote it if it is meant literally",
  ExtendedGlob: "an extended glob",
  BraceExpansion: "a brace expansion ({a,b} or {1..3}); quote it if it is meant literally",
  AnsiCQuoted: "ANSI-C quoting ($'…'); use plain quotes",
  LocaleString: 'a locale string ($"…"); use plain quotes',
}

/** Characters that make unquoted text more than text in bash. */
const UNQUOTED_SPECIAL = new Set([
  "$",
  "`",
  "*",
  "?",
  "[",
  "(",
  ")",
  "<",
  ">",
  "|",
  "&",
  ";",
  "\n",
  "\t",
  " ",
  '"',
  "'",
])
const DQ_SPECIAL = new Set(["$", "`"])

/**
 * Defence in depth over the parser: scans the raw unquoted text itself, so a construct the parser
 * mis-classified as a literal (a glob, a `$`, a separator glued to a word like `pods;id`, a tilde)
 * still fails closed.
 */
function unquotedProblem(text: string, atStart: boolean): string | undefined {
  if (hasUnescaped(text, UNQUOTED_SPECIAL)) return "an unquoted shell special character"
  // Tilde expansion: `~` at the start of a word, or after `=`/`:` in an assignment-like word.
  if ((atStart && text.startsWith("~")) || /[=:]~/.test(text)) return "an unquoted tilde (~)"
  // Brace expansion the parser might miss: `{` followed later by `,` or `..`.
  if (/\{.*(,|\.\.)/s.test(unescapedOnly(text))) return "a brace expansion ({a,b} or {1..3})"
  return undefined
}

function hasUnescaped(text: string, special: Set<string>): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\") {
      i++
      continue
    }
    if (special.has(c)) return true
  }
  return false
}

/** The text with escaped characters (and their backslashes) removed. */
function unescapedOnly(text: string): string {
  return text.replace(/\\[\s\S]/g, "")
}

function quoteForMessage(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)
}
