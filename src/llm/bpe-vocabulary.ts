/**
 * A BPE vocabulary as three typed arrays, built from js-tiktoken's ranks data. js-tiktoken keeps
 * the same vocabulary as a Map keyed by `bytes.join(",")` plus a Uint8Array per token: 200,000
 * more heap objects for o200k_base and ~28 MB more resident memory, and the garbage collector
 * marks them all on every full collection (18–32 ms each with them, 0.3 ms without). Here it is
 * ~4 MB in three arrays the collector never looks inside.
 *
 * Built by a generator that yields every few milliseconds: a worker drains it in one go
 * (encoder-worker.ts), the main thread gives the event loop a turn at each yield (encoder-build.ts).
 */
import type { TiktokenBPE } from "js-tiktoken/lite"

export type EncodingName = "o200k_base" | "cl100k_base"

/** Everything an encoder needs, as it crosses from the worker: typed arrays move without a copy. */
export type Vocabulary = {
  /** Every token's bytes, back to back, in rank order. */
  bytes: Uint8Array
  /** Token `rank` is `bytes[starts[rank] .. starts[rank + 1])`; an empty range is a rank not in use. */
  starts: Uint32Array
  /** Open addressing with linear probing on `hashBytes`: rank + 1 per slot, 0 for an empty slot. */
  table: Int32Array
  /** The pre-tokenizer regex (flags "gu"). */
  pattern: string
  /** Special tokens by text: only `decode` uses them (encoding treats their text as plain text). */
  specials: Record<string, number>
}

/** Work between yields, in milliseconds (checked every few hundred tokens). */
const STEP_MS = 4

/** The encoding's ranks module: megabytes of base64 text, so imported only where it is built. */
export async function loadRanks(encoding: EncodingName): Promise<TiktokenBPE> {
  // Literal specifiers, so the bundler embeds the ranks in the compiled binary.
  return encoding === "cl100k_base"
    ? (await import("js-tiktoken/ranks/cl100k_base")).default
    : (await import("js-tiktoken/ranks/o200k_base")).default
}

/** FNV-1a over `bytes[start .. end)`. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193)
  // FNV's low bits mix poorly for short keys, and the table is indexed by them.
  return hash ^ (hash >>> 15)
}

/** Whether `a[aStart ..]` and `b[bStart ..]` hold the same `length` bytes. */
function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aStart + i] !== b[bStart + i]) return false
  return true
}

/** The rank whose bytes are `key[start .. end)`, or -1. */
export function rankOf(vocabulary: Vocabulary, key: Uint8Array, start: number, end: number): number {
  const { bytes, starts, table } = vocabulary
  const mask = table.length - 1
  const length = end - start
  for (let slot = hashBytes(key, start, end) & mask; ; slot = (slot + 1) & mask) {
    const entry = table[slot] as number
    if (entry === 0) return -1
    const rank = entry - 1
    const at = starts[rank] as number
    if ((starts[rank + 1] as number) - at === length && sameBytes(bytes, at, key, start, length)) return rank
  }
}

/**
 * Decodes `ranks.bpe_ranks` (lines of `! <first rank> <base64 token> <base64 token> …`) straight
 * into the arrays, with no string or array per token. Ranks must ascend through the text, as they
 * do in every tiktoken encoding; bytes listed twice are found by their last rank, as in
 * js-tiktoken's map.
 */
export function* buildVocabulary(ranks: TiktokenBPE): Generator<void, Vocabulary> {
  const source = ranks.bpe_ranks
  const size = lastRank(source) + 1
  // Counting the tokens and zeroing 4 MB take ~10 and ~25 ms on a loaded machine: a turn between.
  yield
  // Base64 is 4 characters per 3 bytes, so the text bounds the bytes; the spare end is cut below.
  const bytes = new Uint8Array(Math.ceil((source.length * 3) / 4))
  const starts = new Uint32Array(size + 1)
  // ~2.5 slots per token keeps probe runs short.
  const table = new Int32Array(2 ** Math.ceil(Math.log2(size * 2.5)))
  const vocabulary: Vocabulary = {
    bytes,
    starts,
    table,
    pattern: ranks.pat_str,
    specials: ranks.special_tokens,
  }
  yield
  let next = 0
  let written = 0
  let count = 0
  let since = performance.now()
  for (let line = 0; line < source.length; ) {
    const lineEnd = endOf(source, line, NEWLINE)
    const offsetAt = endOf(source, line, SPACE, lineEnd) + 1
    let at = endOf(source, offsetAt, SPACE, lineEnd) + 1
    let rank = Number.parseInt(source.slice(offsetAt, at - 1), 10)
    if (!(rank >= next)) throw new Error(`BPE ranks: line at ${line} does not continue the ranks before it`)
    for (; at < lineEnd; rank++) {
      // A rank skipped over has an empty range.
      while (next <= rank) starts[next++] = written
      const end = endOf(source, at, SPACE, lineEnd)
      const start = written
      written = decodeBase64(source, at, end, bytes, written)
      insert(vocabulary, rank, start, written)
      at = end + 1
      if ((++count & 255) === 0 && performance.now() - since > STEP_MS) {
        yield
        since = performance.now()
      }
    }
    line = lineEnd + 1
  }
  while (next <= size) starts[next++] = written
  // A copy of the used part: the spare end would otherwise stay allocated behind a view.
  vocabulary.bytes = bytes.slice(0, written)
  return vocabulary
}

/** Runs a build to its end without pausing (in a worker, or where a pause is not wanted). */
export function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

function insert(vocabulary: Vocabulary, rank: number, start: number, end: number): void {
  const { bytes, starts, table } = vocabulary
  const mask = table.length - 1
  const length = end - start
  let slot = hashBytes(bytes, start, end) & mask
  for (; table[slot] !== 0; slot = (slot + 1) & mask) {
    // Every rank in the table is below this one, so its range is complete.
    const other = (table[slot] as number) - 1
    const at = starts[other] as number
    if ((starts[other + 1] as number) - at === length && sameBytes(bytes, at, bytes, start, length)) {
      // The earlier rank's bytes stay in place (decode still finds them), but lookups give this one.
      break
    }
  }
  table[slot] = rank + 1
}

/** The last rank the text lists: its last line's first rank plus its tokens (one line may hold all). */
function lastRank(source: string): number {
  let end = source.length
  while (end > 0 && source.charCodeAt(end - 1) === NEWLINE) end--
  const line = source.lastIndexOf("\n", end - 1) + 1
  const offsetAt = line + 2
  const offset = Number.parseInt(source.slice(offsetAt, endOf(source, offsetAt, SPACE, end)), 10)
  // `! <offset> <token 1> … <token n>` has n + 1 spaces.
  let spaces = 0
  for (let at = source.indexOf(" ", line); at >= 0 && at < end; at = source.indexOf(" ", at + 1)) spaces++
  return offset + spaces - 2
}

const NEWLINE = 10
const SPACE = 32
const PAD = 61

/** 6-bit value of each base64 character by char code, -1 for the rest. */
const BASE64 = (() => {
  const values = new Int8Array(128).fill(-1)
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for (let i = 0; i < alphabet.length; i++) values[alphabet.charCodeAt(i)] = i
  return values
})()

/** Decodes the base64 in `text[from .. to)` into `out` at `at`; returns where the bytes end. */
function decodeBase64(text: string, from: number, to: number, out: Uint8Array, at: number): number {
  let bits = 0
  let held = 0
  let end = at
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i)
    if (code === PAD) break
    const value = code < 128 ? (BASE64[code] as number) : -1
    if (value < 0) throw new Error(`BPE ranks: not base64 at ${i}`)
    bits = ((bits << 6) | value) & 0xffffff
    held += 6
    if (held >= 8) {
      held -= 8
      out[end++] = bits >>> held
    }
  }
  return end
}

/** The index of the next `char` (or a newline) at or after `from`, or `limit`. */
function endOf(text: string, from: number, char: number, limit = text.length): number {
  let i = from
  while (i < limit && text.charCodeAt(i) !== char && text.charCodeAt(i) !== NEWLINE) i++
  return i
}
