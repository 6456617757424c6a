/**
 * A PROTOTYPE of the fix proposed for `TokenCounter.countText` (src/llm/tokens.ts), kept in the
 * bench so the proposal is measured, not guessed. It is not used by dupin.
 *
 * tiktoken splits text with the encoding's regex, then byte-pair-encodes each piece on its own.
 * js-tiktoken's BPE is quadratic per piece and keys its rank map by `bytes.join(",")` strings, so
 * it runs at 1–4 MB/s; yet tool output repeats the same pieces endlessly (indentation, keys,
 * punctuation, words). Counting piece by piece with a memo of piece → token count gives exactly
 * the same total (specials are plain text for us: `encode(text, [], [])`) and skips BPE for every
 * piece seen before.
 */
import type { Tiktoken } from "js-tiktoken/lite"

/** Pieces longer than this are encoded each time (rare, and they would bloat the memo). */
const MAX_MEMO_PIECE = 48
/** Entries before the memo is dropped and rebuilt: bounds memory (~10 MB) on adversarial text. */
const MAX_MEMO_ENTRIES = 200_000

export class PieceMemoCounter {
  readonly #memo = new Map<string, number>()
  readonly #pattern: RegExp

  constructor(
    private readonly encoder: Tiktoken,
    patStr: string,
  ) {
    this.#pattern = new RegExp(patStr, "gu")
  }

  countText(text: string): number {
    if (!text) return 0
    let total = 0
    const memo = this.#memo
    this.#pattern.lastIndex = 0
    for (const match of text.matchAll(this.#pattern)) {
      const piece = match[0]
      if (piece.length > MAX_MEMO_PIECE) {
        total += this.encoder.encode(piece, [], []).length
        continue
      }
      let n = memo.get(piece)
      if (n === undefined) {
        n = this.encoder.encode(piece, [], []).length
        if (memo.size >= MAX_MEMO_ENTRIES) memo.clear()
        memo.set(piece, n)
      }
      total += n
    }
    return total
  }
}

/** The private encoder and its split regex, reached through the counter (bench only). */
export function internalsOf(counter: object): { encoder: Tiktoken; patStr: string } {
  const encoder = (counter as unknown as { encoder: Tiktoken & { patStr: string } }).encoder
  return { encoder, patStr: encoder.patStr }
}
