/**
 * js-tiktoken's constructor decodes the whole vocabulary (200,000 base64 tokens for o200k_base)
 * in one synchronous run: half a second on an idle machine, several under load, and it ran on the
 * first request's event loop (finding R17: the first chat after start blocked /healthz 0.7 s).
 * This builds the same two maps in slices, giving the event loop a turn every few milliseconds.
 * It fills the instance's own maps (js-tiktoken 1.x keeps them as public-at-runtime fields,
 * `rankMap` keyed by the bytes joined with commas and `textMap` by rank, as its constructor does);
 * test/llm/encoder-build.test.ts checks the result against the library's constructor.
 */
import type { Tiktoken, TiktokenBPE } from "js-tiktoken/lite"
import { yieldToLoop } from "../offloop/yield.ts"

/** Tokens decoded between turns of the event loop (about a millisecond of work). */
const TOKENS_PER_SLICE = 2_000

type Maps = { rankMap: Map<string, number>; textMap: Map<number, Uint8Array> }

/** `Tiktoken` is passed in: the library loads lazily (tokens.ts), on first use. */
export async function buildEncoder(
  Encoder: typeof Tiktoken,
  ranks: TiktokenBPE,
  signal?: AbortSignal,
): Promise<Tiktoken> {
  // An empty vocabulary: the constructor then only sets the pattern and the special tokens.
  const encoder = new Encoder({ ...ranks, bpe_ranks: "" })
  const { rankMap, textMap } = encoder as unknown as Maps
  let n = 0
  for (const line of ranks.bpe_ranks.split("\n")) {
    if (!line) continue
    const [, offsetText, ...tokens] = line.split(" ")
    const offset = Number.parseInt(offsetText ?? "0", 10)
    for (let i = 0; i < tokens.length; i++) {
      const bytes = Uint8Array.fromBase64(tokens[i] ?? "")
      rankMap.set(bytes.join(","), offset + i)
      textMap.set(offset + i, bytes)
      if (++n % TOKENS_PER_SLICE === 0) {
        await yieldToLoop()
        signal?.throwIfAborted()
      }
    }
  }
  return encoder
}
