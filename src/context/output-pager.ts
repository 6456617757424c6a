/**
 * Line ranges and searches over a stored tool output. Pure functions over a string; they never
 * split the whole text into an array (outputs are up to the spawn cap, 10 MB by default).
 */

import type { Slicer } from "../offloop/yield.ts"
import type { LineTest } from "./search-pattern.ts"

/** A longer line is clipped in pages and matches; the model sees how much was left out. */
export const LINE_MAX_CHARS = 2_000
/** Work between two returns to the event loop during a search, so /healthz answers meanwhile. */
const SLICE_MS = 10

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

/** `countLines`, a slice at a time: tool output can be the spawn cap's 10 MB. */
export async function countLinesSliced(text: string, slicer: Slicer): Promise<number> {
  if (text.length === 0) return 0
  let lines = 1
  let n = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    lines++
    if (++n % 4096 === 0) await slicer.tick()
  }
  return text.endsWith("\n") ? lines - 1 : lines
}

/**
 * Calls `visit` with each line's 1-based number and bounds, from line `from`, until it returns
 * false. Callers slice only the lines they show: a search over 10 MB must not copy every line.
 */
function eachLine(
  text: string,
  from: number,
  visit: (n: number, start: number, end: number) => boolean,
): void {
  let n = 1
  let pos = 0
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos)
    const end = nl === -1 ? text.length : nl
    if (n >= from && !visit(n, pos, end)) return
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
  eachLine(text, start, (n, from, to) => {
    const shown = `${n}: ${clipLine(text.slice(from, to))}`
    if (lines.length > 0 && chars + shown.length > maxChars) return false
    lines.push(shown)
    chars += shown.length + 1
    return lines.length < maxLines
  })
  return { start, lines, total: countLines(text) }
}

export type SearchBounds = {
  maxMatches: number
  /** Characters of each line searched. */
  window: number
  /** Wall-clock budget of the whole search; past it the search stops and says where. */
  budgetMs: number
  signal?: AbortSignal
}

export type Found = {
  /** 1-based numbers of matching lines, in order, at most maxMatches. */
  lines: number[]
  /** True when matches were left out past maxMatches. */
  more: boolean
  /** The line the search stopped at when the budget ran out. */
  stoppedAt?: number
}

/**
 * The matching lines of `text`. Gives the event loop back every few milliseconds and stops at the
 * time budget or an abort: even a linear-time engine over 10 MB is a lot of work for one request.
 */
export async function findMatches(text: string, test: LineTest, bounds: SearchBounds): Promise<Found> {
  const lines: number[] = []
  const started = performance.now()
  let sliceStart = started
  let more = false
  let stoppedAt: number | undefined
  let n = 0
  let pos = 0
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos)
    const end = nl === -1 ? text.length : nl
    n++
    if (test(text.slice(pos, Math.min(end, pos + bounds.window)))) {
      if (lines.length >= bounds.maxMatches) {
        more = true
        break
      }
      lines.push(n)
    }
    pos = end + 1
    const now = performance.now()
    if (now - sliceStart < SLICE_MS) continue
    if (now - started >= bounds.budgetMs) {
      stoppedAt = n
      break
    }
    await new Promise((resolve) => setImmediate(resolve))
    bounds.signal?.throwIfAborted()
    sliceStart = performance.now()
  }
  return stoppedAt === undefined ? { lines, more } : { lines, more, stoppedAt }
}

export type GrepOptions = { contextLines: number; maxChars: number }

export type GrepResult = {
  /** Output blocks: `n: line` for a match, `n- line` for context, `--` between blocks (grep -n -C). */
  lines: string[]
  /** Matches shown. */
  matches: number
  /** True when matches were left out by maxChars. */
  cut: boolean
}

/** Renders matching lines (from findMatches) with context like `grep -n -C`, within maxChars. */
export function grepText(text: string, matched: readonly number[], options: GrepOptions): GrepResult {
  const out: string[] = []
  const context = options.contextLines
  const isMatch = new Set(matched)
  const lastWanted = (matched.at(-1) ?? 0) + context
  // `next` walks the sorted matches: the first one whose context can still reach line n.
  let next = 0
  const near = (n: number): boolean => {
    while (next < matched.length && matched[next]! + context < n) next++
    return next < matched.length && matched[next]! - context <= n
  }
  let chars = 0
  let matches = 0
  let cut = false
  let lastShown = 0
  eachLine(text, Math.max(1, (matched[0] ?? 1) - context), (n, from, to) => {
    if (n > lastWanted) return false
    if (!near(n)) return true
    const line = text.slice(from, to)
    const match = isMatch.has(n)
    const block = lastShown > 0 && n > lastShown + 1 ? "--\n" : ""
    const shown = `${n}${match ? ":" : "-"} ${clipLine(line)}`
    if (chars + block.length + shown.length > options.maxChars && out.length > 0) {
      cut = true
      return false
    }
    if (block) out.push("--")
    out.push(shown)
    chars += block.length + shown.length + 1
    lastShown = n
    if (match) matches++
    return true
  })
  return { lines: out, matches, cut }
}
