import { TokenCounter } from "../llm/tokens.ts"
import { log } from "../log.ts"
import { startIdleWorker } from "../offloop/runner.ts"
import { Slicer } from "../offloop/yield.ts"
import type { Runtime } from "../runtime/runtime.ts"
import { compileChatRequest } from "./chat-request.ts"

/**
 * What the first chat after start would otherwise do on its own event loop (finding R17: it
 * blocked /healthz 0.7 s), done in the background right after listening, while the toolsets'
 * prerequisites still run (before /readyz is 200, usually): load the provider SDK (one module
 * load), compile the chat request's schema, build the default model's tokenizer (a slice at a
 * time, llm/encoder-build.ts) and count
 * the tool definitions once (a slice at a time; later counts hit the piece memo), and start one
 * off-loop worker (src/offloop/). The module load
 * is one block of the event loop that cannot be cut; it happens here, before traffic usually
 * arrives, and /readyz does not wait for it (start-up time stays what it was).
 */
export function warmUpLater(runtime: Runtime): void {
  setImmediate(() => {
    warmUp(runtime).catch(() => {
      // Nothing is lost: the first chat does whatever did not happen here.
    })
  })
}

async function warmUp(runtime: Runtime): Promise<void> {
  const started = performance.now()
  startIdleWorker()
  compileChatRequest()
  // Throws when no model is configured: /readyz says so, and nothing is to be warmed.
  const model = runtime.model()
  const counter = await TokenCounter.forModel(model.info.id)
  const slicer = new Slicer()
  for (const schema of runtime.executor.schemas()) {
    await counter.countTextSliced(JSON.stringify(schema.function), slicer)
  }
  log.info("warmed up", { model: model.name, ms: Math.round(performance.now() - started) })
}
