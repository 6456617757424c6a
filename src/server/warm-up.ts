import type { Config } from "../config/config.ts"
import { TokenCounter } from "../llm/tokens.ts"

/**
 * Loads the default model's tokenizer in the background once the server listens, so the first chat
 * does not wait for it (finding R17: the first request after start blocked /healthz 0.7 s). The
 * load gives the event loop a turn every millisecond or so (llm/encoder-build.ts) and starts a
 * little after listening, to stay out of the way of start-up itself.
 */
const AFTER_LISTEN_MS = 200

export function warmUpLater(config: Config): void {
  const timer = setTimeout(() => {
    let id: string
    try {
      id = config.createModel(undefined).info.id
    } catch {
      // No usable model yet: /readyz says so, and the first chat loads the tokenizer itself.
      return
    }
    TokenCounter.forModel(id).catch(() => undefined)
  }, AFTER_LISTEN_MS)
  // A process that is stopping does not wait for the warm-up.
  timer.unref()
}
