import { TokenCounter } from "../llm/tokens.ts"
import { log } from "../log.ts"
import { startIdleWorker } from "../offloop/runner.ts"
import { Slicer, yieldToLoop } from "../offloop/yield.ts"
import type { Runtime } from "../runtime/runtime.ts"
import { compileChatRequest } from "./chat-request.ts"

/**
 * What the first chat after start would otherwise do on its own event loop (finding R17: it
 * blocked /healthz 0.7 s), done in the background once the start's first readiness probe has been
 * answered (server.ts: `afterStart`), while the toolsets'
 * prerequisites still run: load the provider SDK, start loading the default model's tokenizer
 * (llm/encoder-build.ts: read prebuilt in the binary, built in a short-lived worker from source),
 * start one off-loop worker (src/offloop/), compile the chat request's schema, load the chat route
 * and the engine (app.ts and runtime.ts load them lazily), then count the tool definitions once
 * (later counts hit the piece memo). One step per turn of the event loop: a probe or request that
 * arrives meanwhile waits for the step under way (the SDK's module load, ~25 ms, is the longest and
 * cannot be cut), never for the whole warm-up. /readyz does not wait for it.
 */
export function warmUpLater(runtime: Runtime): void {
  warmUp(runtime).catch(() => {
    // Nothing is lost: the first chat does whatever did not happen here.
  })
}

async function warmUp(runtime: Runtime): Promise<void> {
  const started = performance.now()
  await yieldToLoop()
  // Throws when no model is configured: /readyz says so, and nothing is to be warmed.
  const model = runtime.model()
  const tokenizer = TokenCounter.forModel(model.info.id)
  // Not lost if a later step throws: the first chat awaits the same build.
  tokenizer.catch(() => {})
  await yieldToLoop()
  startIdleWorker()
  await yieldToLoop()
  compileChatRequest()
  await import("./routes/chat.ts")
  await yieldToLoop()
  runtime.engine()
  const counter = await tokenizer
  const slicer = new Slicer()
  for (const schema of runtime.executor.schemas()) {
    await counter.countTextSliced(JSON.stringify(schema.function), slicer)
  }
  log.info("warmed up", { model: model.name, ms: Math.round(performance.now() - started) })
}
