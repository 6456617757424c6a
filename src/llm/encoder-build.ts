/**
 * js-tiktoken's constructor decodes the whole vocabulary (200,000 base64 tokens for o200k_base)
 * in one synchronous run: half a second on an idle machine, several under load, and it ran on the
 * first request's event loop (finding R17: the first chat after start blocked /healthz 0.7 s).
 * This builds the same two maps in slices, giving the event loop a turn every few milliseconds.
 * It fills the instance's own maps (js-tiktoken 1.x keeps them as public-at-runtime fields,
 * `rankMap` keyed by the bytes joined with commas and `textMap` by rank, as its constructor does);
 * test/llm/encoder-build.test.ts checks the result against the library's constructor.
 *
 * `textMap` (rank → bytes) is only read by `decode`, which dupin calls for the few tokens of the
 * piece a cut falls in: it is a view over the vocabulary text the module holds anyway (where each
 * rank's token starts), not 200,000 byte arrays, which saves ~14 MB of resident memory.
 */
import type { Tiktoken, TiktokenBPE } from "js-tiktoken/lite"
import { yieldToLoop } from "../offloop/yield.ts"

/** Tokens decoded between turns of the event loop (about a millisecond of work). */
const TOKENS_PER_SLICE = 2_000

type Maps = { rankMap: Map<string, number>; textMap: Pick<Map<number, Uint8Array>, "get" | "size"> }

/** `Tiktoken` is passed in: the library loads lazily (tokens.ts), on first use. */
export async function buildEncoder(
  Encoder: typeof Tiktoken,
  ranks: TiktokenBPE,
  signal?: AbortSignal,
): Promise<Tiktoken> {
  // An empty vocabulary: the constructor then only sets the pattern and the special tokens.
  const encoder = new Encoder({ ...ranks, bpe_ranks: "" })
  const maps = encoder as unknown as Maps
  const { rankMap } = maps
  const source = ranks.bpe_ranks
  /** Where each rank's base64 token starts in `source`. */
  const starts: number[] = []
  let n = 0
  for (let line = 0; line < source.length; ) {
    const lineEnd = endOf(source, line, NEWLINE)
    // `! <offset> <token> <token> …`: tokens are the ranks offset, offset + 1, …
    const offsetAt = endOf(source, line, SPACE, lineEnd) + 1
    let at = endOf(source, offsetAt, SPACE, lineEnd) + 1
    const offset = Number.parseInt(source.slice(offsetAt, at - 1), 10)
    for (let rank = offset; at < lineEnd; rank++) {
      const end = endOf(source, at, SPACE, lineEnd)
      const bytes = Uint8Array.fromBase64(source.slice(at, end))
      rankMap.set(bytes.join(","), rank)
      starts[rank] = at
      at = end + 1
      if (++n % TOKENS_PER_SLICE === 0) {
        await yieldToLoop()
        signal?.throwIfAborted()
      }
    }
    line = lineEnd + 1
  }
  maps.textMap = {
    size: n,
    get(rank: number): Uint8Array | undefined {
      const at = starts[rank]
      return at === undefined ? undefined : Uint8Array.fromBase64(source.slice(at, endOf(source, at, SPACE)))
    },
  }
  return encoder
}

const NEWLINE = 10
const SPACE = 32

/** The index of the next `char` (or a newline) at or after `from`, or `limit`. */
function endOf(text: string, from: number, char: number, limit = text.length): number {
  let i = from
  while (i < limit && text.charCodeAt(i) !== char && text.charCodeAt(i) !== NEWLINE) i++
  return i
}
