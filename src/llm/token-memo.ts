/**
 * Memoized token counting. tiktoken splits text with the encoding's pre-tokenizer regex and encodes
 * each piece on its own, so a text's tokens are its pieces' tokens in order: counting piece by
 * piece with a memo gives exactly `encode(text).length` and skips the merge for every piece seen
 * before (tool output repeats indentation, keys, words).
 */
import type { Slicer } from "../offloop/yield.ts"
import type { BytePairEncoder } from "./bpe.ts"

/** Longer pieces are encoded each time: rare, and they would bloat the memo. */
const MAX_MEMO_PIECE = 64
/** Entries before the memo is dropped and rebuilt: bounds its memory (a few MB) on adversarial text. */
const MAX_MEMO_ENTRIES = 50_000
/**
 * The merge is quadratic in a piece's length: a 20,000-letter or 20,000-space piece held the event
 * loop for 40 s in js-tiktoken and still takes 0.1–1 s in bpe.ts, and tool output or a pasted blob
 * can hold longer ones. Such pieces are encoded in short slices: exact for ordinary text (no piece
 * this long), and an overestimate of at most one token per slice inside such runs.
 */
const LONG_PIECE = 128
const SLICE = 16

/** Where a token budget runs out inside a text (see `PieceCounter.cut`). */
export type Cut = {
  /** Offset of the first piece that does not fit whole. */
  start: number
  piece: string
  /** Tokens of `piece` that still fit (fewer than its count). */
  room: number
}

export class PieceCounter {
  readonly #memo = new Map<string, number>()
  /** Own instance, driven by `lastIndex`: `matchAll` would clone the regex on every call. */
  readonly #pattern: RegExp

  constructor(private readonly encoder: BytePairEncoder) {
    this.#pattern = new RegExp(encoder.pattern, "gu")
  }

  /** Tokens of `text`: equal to `encoder.encode(text).length` unless it holds a long piece. */
  count(text: string): number {
    const pattern = this.#pattern
    pattern.lastIndex = 0
    let total = 0
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) total += this.countPiece(match[0])
    return total
  }

  /**
   * `count`, a slice at a time: the event loop gets a turn between pieces once the slice is used.
   * Its own regex instance, since other counts run while this one waits.
   */
  async countSliced(text: string, slicer: Slicer): Promise<number> {
    const pattern = new RegExp(this.#pattern.source, "gu")
    let total = 0
    let n = 0
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      total += this.countPiece(match[0])
      if (++n % 64 === 0) await slicer.tick()
    }
    return total
  }

  /** The first piece of `text` that does not fit in `budget` tokens, or undefined if all of it fits. */
  cut(text: string, budget: number): Cut | undefined {
    const pattern = this.#pattern
    pattern.lastIndex = 0
    let used = 0
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      const piece = match[0]
      const n = this.countPiece(piece)
      if (used + n > budget) return { start: match.index, piece, room: budget - used }
      used += n
    }
    return undefined
  }

  /** `cut`, a slice at a time (see `countSliced`). */
  async cutSliced(text: string, budget: number, slicer: Slicer): Promise<Cut | undefined> {
    const pattern = new RegExp(this.#pattern.source, "gu")
    let used = 0
    let n = 0
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      const piece = match[0]
      const count = this.countPiece(piece)
      if (used + count > budget) return { start: match.index, piece, room: budget - used }
      used += count
      if (++n % 64 === 0) await slicer.tick()
    }
    return undefined
  }

  /** Tokens of one piece, sliced as `count` slices it. */
  tokens(piece: string): number[] {
    if (piece.length <= LONG_PIECE) return this.encoder.encodePiece(piece)
    const tokens: number[] = []
    for (const slice of slices(piece)) {
      // Not push(...more): a spread of a huge array overflows the stack.
      for (const token of this.encoder.encode(slice)) tokens.push(token)
    }
    return tokens
  }

  private countPiece(piece: string): number {
    if (piece.length <= LONG_PIECE) return this.memoized(piece, false)
    let total = 0
    for (const slice of slices(piece)) total += this.memoized(slice, true)
    return total
  }

  /**
   * A slice of a long piece is split by the regex again, as a text of its own would be; a whole
   * piece is not (it splits into itself, so the same count, without a second regex run). Both
   * share the memo: a slice that splits into several pieces is never a piece itself.
   */
  private memoized(text: string, slice: boolean): number {
    const memo = this.#memo
    const kept = text.length <= MAX_MEMO_PIECE
    const cached = kept ? memo.get(text) : undefined
    if (cached !== undefined) return cached
    const n = slice ? this.encoder.encode(text).length : this.encoder.countPiece(text)
    if (!kept) return n
    if (memo.size >= MAX_MEMO_ENTRIES) memo.clear()
    memo.set(detached(text), n)
    return n
  }
}

/** `piece` in slices of SLICE code units, never splitting a surrogate pair. */
function* slices(piece: string): Generator<string> {
  for (let i = 0; i < piece.length; ) {
    let end = Math.min(piece.length, i + SLICE)
    if (end < piece.length && isHighSurrogate(piece.charCodeAt(end - 1))) end--
    yield piece.slice(i, end)
    i = end
  }
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

/** Texts shorter than this are cheaper to count than to hash and compare. */
const MIN_CACHED_TEXT = 512
/** Code units of text the cache may hold (copies are UTF-16: twice this in bytes). */
const MAX_CACHED_UNITS = 4 * 1024 * 1024
const MAX_CACHED_TEXT = MAX_CACHED_UNITS / 16

/**
 * Counts of whole texts by content, least recently used dropped first. A system prompt or a tool
 * schema is rebuilt per request, so a new string every time, but with the same text: it is
 * counted once per process. Texts of a few hundred KB at most, a few MB in all.
 */
export class TextCounts {
  readonly #counts = new Map<string, number>()
  #units = 0

  /** Whether `text` is worth caching; `get` and `set` assume it is. */
  static accepts(text: string): boolean {
    return text.length >= MIN_CACHED_TEXT && text.length <= MAX_CACHED_TEXT
  }

  get(text: string): number | undefined {
    const counts = this.#counts
    const n = counts.get(text)
    if (n === undefined) return undefined
    // Map order is insertion order: re-inserting makes it the most recently used.
    counts.delete(text)
    counts.set(text, n)
    return n
  }

  set(text: string, n: number): void {
    const counts = this.#counts
    if (counts.has(text)) return
    this.#units += text.length
    counts.set(detached(text), n)
    for (const oldest of counts.keys()) {
      if (this.#units <= MAX_CACHED_UNITS) break
      counts.delete(oldest)
      this.#units -= oldest.length
    }
  }
}

/**
 * A copy of `text` that owns its characters. JavaScriptCore substrings share their parent's
 * buffer: a 10-character piece of a 10 MB tool output kept as a map key would keep all 10 MB alive.
 * utf16le copies code units as they are, lone surrogates included.
 */
function detached(text: string): string {
  return Buffer.from(text, "utf16le").toString("utf16le")
}
