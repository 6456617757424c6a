import { RE2JS } from "re2js"

/**
 * The model's search patterns for read_tool_output, compiled with RE2 (re2js): matching time is
 * linear in the line's length whatever the pattern, so `(.|.)*Z` costs what `Z` does. A
 * backtracking RegExp on the event loop cannot be interrupted by the tool timeout, and no check of
 * the pattern's text can tell every exponential case apart.
 */
export type LineTest = (line: string) => boolean

export type SearchPattern = {
  test: LineTest
  /** Characters of each line searched: smaller for large patterns, so one line stays cheap. */
  window: number
}

const MAX_PATTERN_CHARS = 500
/** Lines longer than this are searched only in their first part. */
export const MATCH_MAX_CHARS = 10_000
/**
 * RE2 costs at most about (program size × line length) steps per line; building lazy-DFA states
 * for a fresh pattern was measured at up to ~0.3 µs a step, so 1e6 steps bound one line to a few
 * hundred ms at worst (usually a few ms). The search runs in a worker (search-runner.ts); this
 * bound keeps the 5 s budget meaningful, and keeps slices short if it ever runs on the main thread.
 */
const WORK_PER_LINE = 1_000_000

/** A compiled pattern, or a message for the model saying why it was refused. */
export function compileSearchPattern(source: string, ignoreCase: boolean): SearchPattern | string {
  if (source.length > MAX_PATTERN_CHARS) return `The pattern is longer than ${MAX_PATTERN_CHARS} characters.`
  const translated = toRe2Syntax(source)
  if (translated.refused) return translated.refused
  let compiled: RE2JS
  try {
    compiled = RE2JS.compile(translated.source, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0)
  } catch (error) {
    return `Invalid pattern (RE2 syntax, as in grep -E): ${error instanceof Error ? error.message : String(error)}`
  }
  const size = Math.max(1, compiled.programSize())
  const window = Math.max(100, Math.min(MATCH_MAX_CHARS, Math.floor(WORK_PER_LINE / size)))
  return { test: (line) => compiled.test(line), window }
}

const UNSUPPORTED =
  "RE2, the linear-time engine used here, has no backreferences and no lookahead/lookbehind; " +
  "search for the plain text instead and read the context lines."

/**
 * JavaScript regex syntax the model is used to, turned into RE2's: `\uXXXX` and `\u{…}` become
 * `\x{…}`. What RE2 cannot do (backreferences `\1` `\k<n>`, lookaround `(?=` `(?!` `(?<=` `(?<!`)
 * is refused with a message instead of an RE2 parse error the model would not understand.
 */
export function toRe2Syntax(source: string): { source: string; refused?: string } {
  let out = ""
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === "\\") {
      const next = source[i + 1] ?? ""
      if (!inClass && (/[1-9]/.test(next) || (next === "k" && source[i + 2] === "<"))) {
        return { source, refused: `Backreferences are not supported. ${UNSUPPORTED}` }
      }
      if (next === "u") {
        const hex = /^u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/.exec(source.slice(i + 1, i + 10))
        if (hex) {
          out += `\\x{${hex[1] ?? hex[2]}}`
          i += hex[0].length
          continue
        }
      }
      out += c + next
      i++
      continue
    }
    if (inClass) {
      if (c === "]") inClass = false
    } else if (c === "[") {
      inClass = true
      // `[]` and `[^]` open with a literal `]` in RE2; skip it so it does not end the class.
      const close = source[i + 1] === "^" ? i + 2 : i + 1
      if (source[close] === "]") {
        out += source.slice(i, close + 1)
        i = close
        continue
      }
    } else if (c === "(" && /^\?(?:[=!]|<[=!])/.test(source.slice(i + 1, i + 4))) {
      return { source, refused: `Lookahead and lookbehind are not supported. ${UNSUPPORTED}` }
    }
    out += c
  }
  return { source: out }
}
