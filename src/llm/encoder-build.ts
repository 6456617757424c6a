/**
 * Builds an encoding's tokenizer without holding the event loop (finding R17: js-tiktoken's
 * constructor ran for 0.7 s on the first request's loop and blocked /healthz). A short-lived worker
 * imports the ranks module, builds the vocabulary's arrays and transfers them back, then ends: the
 * ranks text (2.3 MB of base64 for o200k_base) and the garbage of parsing it never enter this
 * thread's heap, and the event loop waits a few milliseconds at most. Where a worker cannot start,
 * the build runs here, giving the event loop a turn every few milliseconds, except while the ranks
 * module loads (one block of ~50 ms that cannot be cut).
 *
 * The compiled binary does none of this: build.ts builds both vocabularies and embeds them
 * (vocabulary-file.ts), and a start reads one into typed arrays, off the loop, in a few
 * milliseconds. Neither the ranks modules nor the worker are in the binary.
 */
import { log } from "../log.ts"
import { yieldToLoop } from "../offloop/yield.ts"
import { BytePairEncoder } from "./bpe.ts"
import { buildVocabulary, type EncodingName, loadRanks, type Vocabulary } from "./bpe-vocabulary.ts"
import type { BuildReply } from "./encoder-worker.ts"
import { readEmbeddedVocabulary } from "./vocabulary-file.ts"

/** Defined by build.ts: the binary holds the vocabularies prebuilt. Undefined from source. */
declare const DUPIN_PREBUILT_VOCABULARY: boolean | undefined

class WorkerUnavailable extends Error {}

export async function buildEncoder(encoding: EncodingName): Promise<BytePairEncoder> {
  // A constant in the binary: the bundler drops the other branch, and with it the ranks modules.
  return typeof DUPIN_PREBUILT_VOCABULARY === "boolean"
    ? new BytePairEncoder(await readEmbeddedVocabulary(encoding))
    : buildFromRanks(encoding)
}

async function buildFromRanks(encoding: EncodingName): Promise<BytePairEncoder> {
  try {
    return new BytePairEncoder(await buildInWorker(encoding))
  } catch (error) {
    if (!(error instanceof WorkerUnavailable)) throw error
    log.warn("tokenizer worker unavailable, building the tokenizer on the main thread", {
      encoding,
      error: error.message,
    })
    return new BytePairEncoder(await buildOnLoop(encoding))
  }
}

/** The vocabulary, built in a worker; throws `WorkerUnavailable` if the worker cannot run. */
export function buildInWorker(encoding: EncodingName): Promise<Vocabulary> {
  const { promise, resolve, reject } = Promise.withResolvers<Vocabulary>()
  let worker: Worker
  try {
    worker = new Worker(workerUrl())
  } catch (error) {
    throw new WorkerUnavailable(error instanceof Error ? error.message : String(error))
  }
  worker.onmessage = (event: MessageEvent<BuildReply>) => {
    worker.terminate()
    const reply = event.data
    if ("error" in reply) reject(new Error(`building the ${encoding} tokenizer: ${reply.error}`))
    else resolve(reply.vocabulary)
  }
  worker.onerror = (event) => {
    worker.terminate()
    reject(new WorkerUnavailable(event.message))
  }
  // A worker that ends without a word (killed, out of memory) must not leave the build waiting;
  // after a reply this changes nothing.
  worker.addEventListener("close", () => reject(new WorkerUnavailable("the worker stopped before replying")))
  worker.postMessage(encoding)
  return promise
}

/** The vocabulary, built on this thread a slice at a time (the ranks module stays loaded here). */
export async function buildOnLoop(encoding: EncodingName): Promise<Vocabulary> {
  const steps = buildVocabulary(await loadRanks(encoding))
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
    await yieldToLoop()
  }
}

/**
 * In the compiled binary, modules live under /$bunfs/root/ (src/ at build time) and a split
 * chunk's import.meta.url has lost its folder, so the worker is named by its path under src/, as
 * build.ts lists it; from source, next to this file.
 */
function workerUrl(): string {
  return import.meta.url.includes("/$bunfs/")
    ? "./llm/encoder-worker.ts"
    : new URL("./encoder-worker.ts", import.meta.url).href
}
