/**
 * Tokens of the awk subset dupin reads. The lexer refuses (throws AwkRefused) wherever awks read
 * the same bytes differently: the red team hid `print "id" | "sh"` in text one awk reads as a
 * regex and dupin read as code, so here every regex, division and bracket is one that gawk and
 * mawk must tokenise alike.
 */
export type AwkToken = {
  kind: "name" | "number" | "string" | "regex" | "op" | "newline" | "end"
  text: string
  /** A name written right before `(` (a call, where awk allows no space for user functions). */
  call?: boolean
}

export class AwkRefused extends Error {}

const refuse = (why: string): never => {
  throw new AwkRefused(why)
}

/** Longest first. Not `|`, `|&`, `>>`, `**`, `/=`, `&`, `@`, `::`: pipes, redirection, gawk-only syntax. */
const OPERATORS = [
  "&&",
  "||",
  "==",
  "!=",
  "<=",
  ">=",
  "!~",
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "%=",
  "^=",
  ..."{}()[];,+-*%^!<>=~?:$/",
]

/** Tokens after which `/` divides; mawk decides regex-or-division by the token before it. */
const ENDS_OPERAND = new Set(["name", "number", "string", "regex"])
const CLOSERS = new Set([")", "]"])

export function tokenizeAwk(program: string): AwkToken[] {
  const s = program
  const tokens: AwkToken[] = []
  const push = (token: AwkToken) => tokens.push(token)
  let i = 0
  while (i < s.length) {
    const c = s[i]!
    if (c === " " || c === "\t") {
      i++
      continue
    }
    if (c === "\n") {
      push({ kind: "newline", text: "\n" })
      i++
      continue
    }
    if (c === "#") {
      while (i < s.length && s[i] !== "\n") i++
      continue
    }
    if (c === '"') {
      const end = stringEnd(s, i + 1)
      push({ kind: "string", text: s.slice(i, end) })
      i = end
      continue
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i
      while (j < s.length && /[A-Za-z0-9_]/.test(s[j]!)) j++
      push({ kind: "name", text: s.slice(i, j), call: s[j] === "(" })
      i = j
      continue
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(s[i + 1] ?? ""))) {
      const match = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(s.slice(i))!
      i += match[0].length
      // gawk reads 0x1f as one number, mawk as 0 then the name x1f.
      if (/[A-Za-z_.]/.test(s[i] ?? "")) refuse("a number run into letters, which awks read differently")
      push({ kind: "number", text: match[0] })
      continue
    }
    if (c === "/") {
      const previous = tokens.at(-1)
      if (previous?.text === "$" || previous?.text === "++" || previous?.text === "--")
        refuse(`a / after ${previous.text}, which awks read as a regex or a division`)
      if (previous && (ENDS_OPERAND.has(previous.kind) || CLOSERS.has(previous.text))) {
        // A division some awk read as the start of a regex would need a closing `/` on this line.
        const rest = s.slice(i + 1, lineEnd(s, i))
        if (rest.includes("/")) refuse("a division followed by another / on its line (regex or division?)")
        if (rest.startsWith("=")) refuse("/= (a division assignment or a regex?)")
        push({ kind: "op", text: "/" })
        i++
        continue
      }
      const end = regexEnd(s, i + 1)
      push({ kind: "regex", text: s.slice(i, end) })
      i = end
      continue
    }
    if (c === "\\") refuse("a backslash outside strings and regexes (a line continuation)")
    if (s.startsWith("**", i) || s.startsWith("::", i)) refuse(`${s.slice(i, i + 2)}, which only gawk reads`)
    const op = OPERATORS.find((o) => s.startsWith(o, i))
    if (op === undefined) refuse(`the character ${JSON.stringify(c)}, which is outside the allowed subset`)
    push({ kind: "op", text: op! })
    i += op!.length
  }
  push({ kind: "end", text: "" })
  return tokens
}

function lineEnd(s: string, from: number): number {
  const nl = s.indexOf("\n", from)
  return nl === -1 ? s.length : nl
}

/** Index after the closing quote. Backslash-newline (a continuation in some awks) is refused. */
function stringEnd(s: string, from: number): number {
  return literalEnd(s, from, '"', "string")
}

/**
 * Index after the closing `/`. gawk and mawk skip `/` inside a bracket expression but disagree on
 * the details (`[]/]`, `[[:alpha:]/]`, `[\/]`), so a bracket may hold only plain characters.
 */
function regexEnd(s: string, from: number): number {
  if (s[from] === "=") refuse("a regex starting with = (or a /= assignment?)")
  return literalEnd(s, from, "/", "regex")
}

/** A string or regex body: backslash escapes one character; a newline ends it unterminated. */
function literalEnd(s: string, from: number, close: string, what: "string" | "regex"): number {
  for (let i = from; i < s.length; i++) {
    const c = s[i]!
    if (c === "\n") break
    if (c === close) return i + 1
    if (c === "\\") {
      if (s[i + 1] === undefined || s[i + 1] === "\n") break
      i++
    } else if (c === "[" && what === "regex") i = bracketEnd(s, i + 1)
  }
  return refuse(`an unterminated ${what}`)
}

function bracketEnd(s: string, from: number): number {
  let i = s[from] === "^" ? from + 1 : from
  const start = i
  while (i < s.length && s[i] !== "]") {
    if ("/[\\\n".includes(s[i]!))
      refuse(`${JSON.stringify(s[i])} inside a regex bracket expression, which awks read differently`)
    i++
  }
  if (i === start || i >= s.length) refuse("an empty or unclosed regex bracket expression")
  return i
}
