/**
 * Which shell quoting surrounds each placeholder of a rendered command template, found by
 * scanning the script the way bash reads it. Used by template.ts to write each value's reference
 * for its context; anything not modelled is an error, never a guess.
 */
import { TemplateError } from "./template-error.ts"

export const MARK = "\uE000"
export const MARK_END = "\uE001"
export const MARK_RE = /\uE000(\d+)\uE001/g

/** Where a placeholder sits; `+arith`/`+test` when inside (( )), $(( )) or [[ ]]. */
export type ShellContext = string

type Frame =
  | { kind: "bare"; closer: ")" | "]]" | "))" | null; parens: number }
  | { kind: "dq" | "sq" | "dsq" | "backtick" | "comment" }
  | { kind: "param"; braces: number }
  | { kind: "heredoc"; delimiter: string; quoted: boolean; stripTabs: boolean }

/**
 * The quoting context of every placeholder mark in `text`, scanning as bash would: quotes,
 * backslashes, `$'…'`, comments, `$( )`, `${ }`, backticks, arithmetic, `[[ ]]` and heredocs.
 * Anything it does not model (a `case` statement, a placeholder inside `${ }` or backticks, an
 * unterminated quote) is an error rather than a guess.
 */
export function shellContexts(text: string): ShellContext[] {
  const stack: Frame[] = [{ kind: "bare", closer: null, parens: 0 }]
  const contexts: ShellContext[] = []
  const pending: Array<Extract<Frame, { kind: "heredoc" }>> = []
  let unsure: string | undefined
  const fail = (why: string): never => {
    throw new TemplateError(
      `Cannot tell how a placeholder is quoted in this command (${why}); refusing to run it.`,
    )
  }
  const wordStart = (i: number) => i === 0 || /[\s;&|()<>]/.test(text[i - 1]!)
  let i = 0
  let lineStart = true
  while (i < text.length) {
    const frame = stack.at(-1)!
    const c = text[i]!
    if (frame.kind === "heredoc" && lineStart) {
      const end = text.indexOf("\n", i)
      const line = text.slice(i, end === -1 ? text.length : end)
      if ((frame.stripTabs ? line.replace(/^\t+/, "") : line) === frame.delimiter) {
        stack.pop()
        i += line.length + 1
        continue
      }
    }
    lineStart = false
    if (c === MARK) {
      const end = text.indexOf(MARK_END, i)
      const context = classify(stack, unsure, fail)
      // `${{x}}` would make our `${...}` part of a different expansion.
      if (/^(bare|dq)/.test(context) && text[i - 1] === "$" && text[i - 2] !== "\\")
        fail("placeholder right after $")
      contexts.push(context)
      i = end + 1
      continue
    }
    if (c === "\n") lineStart = true
    switch (frame.kind) {
      case "sq":
        if (c === "'") stack.pop()
        i++
        continue
      case "dsq":
        if (c === "\\") i++
        else if (c === "'") stack.pop()
        i++
        continue
      case "comment":
        if (c === "\n") stack.pop()
        else i++
        continue
      case "backtick":
        if (c === "\\") i++
        else if (c === "`") stack.pop()
        i++
        continue
      case "param":
        if (c === "\\") i++
        else if (c === "{") frame.braces++
        else if (c === "}" && --frame.braces === 0) stack.pop()
        i++
        continue
      case "dq":
      case "heredoc":
        if (c === "\\") i += 2
        else if (c === '"' && frame.kind === "dq") i = leave(i + 1)
        else if (c === "$" || c === "`") i = dollar(i, false)
        else i++
        continue
      case "bare":
        i = bare(frame, i)
    }
  }
  // A mark skipped as an escaped character (`\{{ x }}`) never got a context.
  if (contexts.length !== text.split(MARK).length - 1) fail("placeholder right after a backslash")
  // A comment may end the script without a newline.
  if (stack.at(-1)!.kind === "comment") stack.pop()
  if (stack.length > 1) fail(`unterminated ${stack.at(-1)!.kind} construct`)
  return contexts

  function enter(frame: Frame, next: number): number {
    stack.push(frame)
    return next
  }

  function leave(next: number): number {
    stack.pop()
    return next
  }

  function dollar(i: number, inBare: boolean): number {
    if (text[i] === "`") return enter({ kind: "backtick" }, i + 1)
    const next = text.slice(i + 1, i + 3)
    if (next === "((") return enter({ kind: "bare", closer: "))", parens: 0 }, i + 3)
    if (next[0] === "(") return enter({ kind: "bare", closer: ")", parens: 0 }, i + 2)
    if (next[0] === "{") return enter({ kind: "param", braces: 1 }, i + 2)
    if (inBare && next[0] === "'") return enter({ kind: "dsq" }, i + 2)
    if (inBare && next[0] === '"') return enter({ kind: "dq" }, i + 2)
    return i + 1
  }

  function bare(frame: Extract<Frame, { kind: "bare" }>, i: number): number {
    const c = text[i]!
    const rest = text.slice(i, i + 4)
    if (c === "\\") return i + 2
    if (c === "'") return enter({ kind: "sq" }, i + 1)
    if (c === '"') return enter({ kind: "dq" }, i + 1)
    if (c === "$" || c === "`") return dollar(i, true)
    if (c === "#" && wordStart(i)) return enter({ kind: "comment" }, i + 1)
    if (c === "\n" && pending.length > 0) {
      stack.push(...pending.reverse())
      pending.length = 0
      return i + 1
    }
    if (frame.closer === "))" && frame.parens === 0 && rest.startsWith("))")) return leave(i + 2)
    if (frame.closer === "]]" && rest.startsWith("]]")) return leave(i + 2)
    if (rest.startsWith("((") && wordStart(i)) return enter({ kind: "bare", closer: "))", parens: 0 }, i + 2)
    if (/^\[\[\s/.test(rest) && wordStart(i)) return enter({ kind: "bare", closer: "]]", parens: 0 }, i + 2)
    if (c === "(") {
      frame.parens++
      return i + 1
    }
    if (c === ")") {
      if (frame.closer === ")" && frame.parens === 0) stack.pop()
      else frame.parens--
      return i + 1
    }
    // A here-string is one word; skipping it whole keeps its last two `<` from reading as `<<`.
    if (rest.startsWith("<<<")) return i + 3
    if (rest.startsWith("<<")) {
      const m = /^<<(-?)\s*(?:'([^']*)'|"([^"]*)"|\\?([A-Za-z0-9_.-]+))/.exec(text.slice(i))
      if (!m) unsure = "heredoc delimiter"
      else {
        const quoted = m[2] !== undefined || m[3] !== undefined || m[0].includes("\\")
        pending.push({ kind: "heredoc", delimiter: m[2] ?? m[3] ?? m[4]!, quoted, stripTabs: m[1] === "-" })
        return i + m[0].length
      }
    }
    // `case` patterns break paren counting; `let` evaluates its words as arithmetic.
    const keyword = /^(case|let)\s/.exec(text.slice(i, i + 5))
    if (keyword && wordStart(i)) unsure = `${keyword[1]} statement`
    return i + 1
  }
}

function classify(stack: Frame[], unsure: string | undefined, fail: (why: string) => never): ShellContext {
  if (unsure) fail(unsure)
  const top = stack.at(-1)!
  if (stack.some((f) => f.kind === "backtick")) fail("inside backticks")
  if (stack.some((f) => f.kind === "param")) fail("inside a parameter expansion")
  if (top.kind === "comment") return "comment"
  if (top.kind === "heredoc" && top.quoted) fail("inside a quoted heredoc")
  const base = top.kind === "heredoc" ? "dq" : top.kind
  if (stack.some((f) => f.kind === "bare" && f.closer === "))")) return `${base}+arith`
  if (stack.some((f) => f.kind === "bare" && f.closer === "]]")) return `${base}+test`
  return base
}
