/**
 * tiktoken's byte-pair encoding over a compact vocabulary (bpe-vocabulary.ts), in place of
 * js-tiktoken's `Tiktoken`, whose vocabulary maps cost dupin ~28 MB and nearly all of a full
 * garbage collection's time. It gives exactly js-tiktoken's ids for `encode(text, [], [])` (the
 * only way dupin encodes; test/llm/bpe.test.ts compares the two on both encodings): the text is
 * split by the encoding's regex, each piece is UTF-8 encoded (a lone surrogate becomes U+FFFD), a
 * piece in the vocabulary is its own token, and any other is merged pair by pair from its bytes,
 * the adjacent pair of lowest rank first (the leftmost of equals), until no pair is in the
 * vocabulary.
 */
import { rankOf, type Vocabulary } from "./bpe-vocabulary.ts"

/** A pair not in the vocabulary: above every rank. */
const NO_PAIR = 0x7fffffff

export class BytePairEncoder {
  /** The encoding's pre-tokenizer regex (flags "gu"). */
  readonly pattern: string
  readonly #vocabulary: Vocabulary
  /** Own instance, driven by `lastIndex`: `matchAll` would clone the regex on every call. */
  readonly #pattern: RegExp
  readonly #utf8 = new TextEncoder()
  /** js-tiktoken's decoder: not fatal (a cut inside a character gives U+FFFD) and a leading BOM dropped. */
  readonly #text = new TextDecoder("utf-8")
  readonly #specials = new Map<number, Uint8Array>()
  /** Working memory of the merge, grown for the longest piece seen. */
  #piece = new Uint8Array(256)
  /** Part i of the piece being merged is `#piece[bounds[i] .. bounds[i + 1])`. */
  #bounds = new Int32Array(257)
  /** The rank of parts i and i + 1 together, or NO_PAIR. */
  #pairs = new Int32Array(256)

  constructor(vocabulary: Vocabulary) {
    this.#vocabulary = vocabulary
    this.pattern = vocabulary.pattern
    this.#pattern = new RegExp(vocabulary.pattern, "gu")
    for (const [text, rank] of Object.entries(vocabulary.specials)) {
      this.#specials.set(rank, this.#utf8.encode(text))
    }
  }

  /**
   * The tokens of `text` as plain text: special-token strings such as "<|endoftext|>" in tool
   * output or logs are encoded like any other text, as `Tiktoken.encode(text, [], [])` does.
   */
  encode(text: string): number[] {
    const tokens: number[] = []
    const pattern = this.#pattern
    pattern.lastIndex = 0
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      this.#encodePiece(match[0], tokens)
    }
    return tokens
  }

  /**
   * The tokens of one piece of the pre-tokenizer's split, as `encode` finds them for it inside a
   * text, without splitting it again (PieceCounter has split the text already).
   */
  encodePiece(piece: string): number[] {
    const tokens: number[] = []
    this.#encodePiece(piece, tokens)
    return tokens
  }

  /** `encodePiece(piece).length`, without the array. */
  countPiece(piece: string): number {
    return this.#encodePiece(piece, undefined)
  }

  /** The text of `tokens`; ids that are no token are skipped, as js-tiktoken skips them. */
  decode(tokens: readonly number[]): string {
    const { bytes, starts } = this.#vocabulary
    const parts: Uint8Array[] = []
    let length = 0
    for (const token of tokens) {
      const start = starts[token]
      const end = starts[token + 1]
      const part =
        start !== undefined && end !== undefined && end > start
          ? bytes.subarray(start, end)
          : this.#specials.get(token)
      if (!part) continue
      parts.push(part)
      length += part.length
    }
    const joined = new Uint8Array(length)
    let at = 0
    for (const part of parts) {
      joined.set(part, at)
      at += part.length
    }
    return this.#text.decode(joined)
  }

  /** Pushes the piece's tokens onto `tokens` if given; returns how many there are. */
  #encodePiece(piece: string, tokens: number[] | undefined): number {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit (4 for a surrogate pair's 2).
    if (this.#piece.length < piece.length * 3) this.#grow(piece.length * 3)
    const length = this.#utf8.encodeInto(piece, this.#piece).written
    const whole = rankOf(this.#vocabulary, this.#piece, 0, length)
    if (whole < 0) return this.#merge(length, tokens)
    tokens?.push(whole)
    return 1
  }

  /**
   * The merge keeps each adjacent pair's rank and, after a merge, looks up only the two pairs it
   * changed: quadratic in the piece's bytes like js-tiktoken's, but with no string built per
   * lookup. Pieces are short (PieceCounter cuts long runs into slices), so no heap is needed.
   */
  #merge(length: number, tokens: number[] | undefined): number {
    const vocabulary = this.#vocabulary
    const piece = this.#piece
    const bounds = this.#bounds
    const pairs = this.#pairs
    for (let i = 0; i <= length; i++) bounds[i] = i
    let parts = length
    for (let i = 0; i < parts - 1; i++) pairs[i] = pairRank(vocabulary, piece, bounds, i)
    while (parts > 1) {
      let lowest = NO_PAIR
      let at = -1
      for (let i = 0; i < parts - 1; i++) {
        const rank = pairs[i] as number
        if (rank < lowest) {
          lowest = rank
          at = i
        }
      }
      if (at < 0) break
      bounds.copyWithin(at + 1, at + 2, parts + 1)
      pairs.copyWithin(at + 1, at + 2, parts - 1)
      parts--
      if (at < parts - 1) pairs[at] = pairRank(vocabulary, piece, bounds, at)
      if (at > 0) pairs[at - 1] = pairRank(vocabulary, piece, bounds, at - 1)
    }
    let count = 0
    for (let i = 0; i < parts; i++) {
      // Every single byte is a token in tiktoken's encodings; js-tiktoken drops a part that is not.
      const rank = rankOf(vocabulary, piece, bounds[i] as number, bounds[i + 1] as number)
      if (rank < 0) continue
      tokens?.push(rank)
      count++
    }
    return count
  }

  #grow(size: number): void {
    this.#piece = new Uint8Array(size)
    this.#bounds = new Int32Array(size + 1)
    this.#pairs = new Int32Array(size)
  }
}

/** The rank of parts `i` and `i + 1` of `piece` together, or NO_PAIR. */
function pairRank(vocabulary: Vocabulary, piece: Uint8Array, bounds: Int32Array, i: number): number {
  const rank = rankOf(vocabulary, piece, bounds[i] as number, bounds[i + 2] as number)
  return rank < 0 ? NO_PAIR : rank
}
