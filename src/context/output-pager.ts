/**
 * Line ranges and searches over a stored tool output. Pure functions over a string; they never
 * split the whole text into an array (outputs are up to the spawn cap, 10 MB by default).
 */

/** A longer line is clipped in pages and matches; the model sees how much was left out. */
export const LINE_MAX_CHARS = 2_000
/** Lines longer than this are searched only in their first part, to bound regex work. */
const MATCH_MAX_CHARS = 10_000

export type Page = {
  /** 1-based number of the first line shown. */
  start: number
  /** Lines shown, each prefixed with its number. */
  lines: string[]
  /** Lines in the whole text. */
  total: number
}

/** Lines in `text` (a trailing newline does not start another line). */
export function countLines(text: string): number {
  if (text.length === 0) return 0
  let lines = 1
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++
  return text.endsWith("\n") ? lines - 1 : lines
}

/** Calls `visit` with each line and its 1-based number until it returns false. */
function eachLine(text: string, from: number, visit: (line: string, n: number) => boolean): void {
  let n = 1
  let pos = 0
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos)
    const end = nl === -1 ? text.length : nl
    if (n >= from && !visit(text.slice(pos, end), n)) return
    n++
    pos = end + 1
  }
}

export function clipLine(line: string): string {
  if (line.length <= LINE_MAX_CHARS) return line
  return `${line.slice(0, LINE_MAX_CHARS)} … [line clipped: ${line.length - LINE_MAX_CHARS} more characters]`
}

/** Up to `maxLines` lines from `start` (1-based), stopping early past `maxChars`. */
export function readLines(text: string, start: number, maxLines: number, maxChars: number): Page {
  const lines: string[] = []
  let chars = 0
  eachLine(text, start, (line, n) => {
    const shown = `${n}: ${clipLine(line)}`
    if (lines.length > 0 && chars + shown.length > maxChars) return false
    lines.push(shown)
    chars += shown.length + 1
    return lines.length < maxLines
  })
  return { start, lines, total: countLines(text) }
}

export type GrepOptions = { contextLines: number; maxMatches: number; maxChars: number }

export type GrepResult = {
  /** Output blocks: `n: line` for a match, `n- line` for context, `--` between blocks (grep -n -C). */
  lines: string[]
  matches: number
  /** True when matches were left out (by maxMatches or maxChars). */
  more: boolean
}

export function grepText(text: string, pattern: RegExp, options: GrepOptions): GrepResult {
  const out: string[] = []
  const before: Array<[number, string]> = []
  let chars = 0
  let matches = 0
  let more = false
  let lastShown = 0
  let afterLeft = 0
  const emit = (n: number, line: string, match: boolean): boolean => {
    if (lastShown > 0 && n > lastShown + 1) out.push("--")
    const shown = `${n}${match ? ":" : "-"} ${clipLine(line)}`
    if (chars + shown.length > options.maxChars && out.length > 0) return false
    out.push(shown)
    chars += shown.length + 1
    lastShown = n
    return true
  }
  eachLine(text, 1, (line, n) => {
    if (pattern.test(line.length > MATCH_MAX_CHARS ? line.slice(0, MATCH_MAX_CHARS) : line)) {
      if (matches >= options.maxMatches) {
        more = true
        return false
      }
      for (const [bn, bl] of before) {
        if (bn > lastShown && !emit(bn, bl, false)) {
          more = true
          return false
        }
      }
      before.length = 0
      if (!emit(n, line, true)) {
        more = true
        return false
      }
      matches++
      afterLeft = options.contextLines
      return true
    }
    if (afterLeft > 0) {
      afterLeft--
      if (!emit(n, line, false)) {
        more = true
        return false
      }
      return true
    }
    if (options.contextLines > 0) {
      before.push([n, line])
      if (before.length > options.contextLines) before.shift()
    }
    return true
  })
  return { lines: out, matches, more }
}

/**
 * Refuses patterns with a quantified group that itself contains a quantifier, like `(a+)+`:
 * JavaScript regexes backtrack, such a pattern can take exponential time on one line, and a
 * synchronous regex cannot be interrupted by the tool timeout.
 */
export function unsafePattern(source: string): string | undefined {
  if (source.length > 500) return "The pattern is longer than 500 characters."
  if (/\([^)]*[+*}][^)]*\)\s*[+*{]/.test(source)) {
    return "Nested quantifiers (like (a+)+) are not allowed; use a simpler pattern."
  }
  if (/\\[1-9]/.test(source)) return "Backreferences are not allowed."
  return undefined
}
