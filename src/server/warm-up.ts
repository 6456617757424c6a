import type { Config } from "../config/config.ts"
import { TokenCounter } from "../llm/tokens.ts"
import { Slicer } from "../offloop/yield.ts"
import { toolExecutorFor } from "../runtime/runtime.ts"

/**
 * What the first chat after start would otherwise do on its own event loop (finding R17: it
 * blocked /healthz 0.7 s), done in the background right after listening, while the toolsets'
 * prerequisites still run (before /readyz is 200, usually): load the provider SDK (one module
 * load), build the default model's tokenizer (a slice at a time, llm/encoder-build.ts) and count
 * the tool definitions once (a slice at a time; later counts hit the piece memo).
 */
export function warmUpLater(config: Config): void {
  setImmediate(() => {
    warmUp(config).catch(() => {
      // Nothing is lost: the first chat does whatever did not happen here.
    })
  })
}

async function warmUp(config: Config): Promise<void> {
  // Throws when no model is configured: /readyz says so, and nothing is to be warmed.
  const model = config.createModel(undefined)
  const counter = await TokenCounter.forModel(model.info.id)
  const slicer = new Slicer()
  for (const schema of toolExecutorFor(config).schemas()) {
    await counter.countTextSliced(JSON.stringify(schema.function), slicer)
  }
}
