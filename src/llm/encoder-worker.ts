/**
 * Worker entry of the tokenizer build (encoder-build.ts): imports an encoding's ranks module,
 * builds its vocabulary and transfers the arrays back, so the ranks text is parsed and collected
 * in this thread's heap, never the server's. build.ts lists this file as an entry point so the
 * compiled binary contains it.
 */
import { buildVocabulary, drain, type EncodingName, loadRanks, type Vocabulary } from "./bpe-vocabulary.ts"

export type BuildReply = { vocabulary: Vocabulary } | { error: string }

declare const self: Worker

self.onmessage = async (event: MessageEvent<EncodingName>) => {
  try {
    const vocabulary = drain(buildVocabulary(await loadRanks(event.data)))
    const buffers = [vocabulary.bytes, vocabulary.starts, vocabulary.table].map(
      (a) => a.buffer as ArrayBuffer,
    )
    self.postMessage({ vocabulary } satisfies BuildReply, buffers)
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies BuildReply)
  }
}
