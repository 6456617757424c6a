import { redact } from "../redact.ts"
import { redactSecretValues } from "../redact-values.ts"
import { JobTimeout, offLoop } from "./runner.ts"

/**
 * Redaction of text an outside party sizes (tool output up to the spawn cap's 10 MB, eight at a
 * time): linear, but about 1 s per 10 MB of Secret manifests, so 8 such results held the event
 * loop for 2.5 s (finding R11). Texts up to INLINE_CHARS cost at most a few milliseconds and are
 * redacted here; longer ones in a worker.
 */
const INLINE_CHARS = 128 * 1024
/** Far above the 1–2 s 10 MB takes; past it the text is withheld, never passed on unredacted. */
const DEADLINE_MS = 60_000

export async function redactOffLoop(text: string, signal: AbortSignal): Promise<string> {
  if (text.length <= INLINE_CHARS) return redact(text)
  try {
    // The configured secret values live in this thread's memory only (a worker's list is empty):
    // they go first, here, as redact() would take them; a plain search, cheap even at 10 MB.
    const [out] = await offLoop({ kind: "redact", texts: [redactSecretValues(text)] }, DEADLINE_MS, signal)
    return out ?? ""
  } catch (error) {
    if (!(error instanceof JobTimeout)) throw error
    return `[output withheld: redacting its ${text.length} characters did not finish within ${DEADLINE_MS / 1000} s]`
  }
}
