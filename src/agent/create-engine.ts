/**
 * What the runtime calls to build the engine door. The engine's modules (the loop, the context
 * window, the prompt, read_tool_output's regex search) load with the first engine, not with every
 * entry point: `serve` binds its port and says it is ready without them, and its warm-up or first
 * chat loads them. The lazy load stays inside agent/: the runtime still shows its dependency on
 * agent/ in the import graph (as llm/model-factory.ts does for the provider SDK).
 */
import type { ToolCallingLLM, ToolCallingLLMInit } from "./tool-calling-llm.ts"

export function createEngine(init: ToolCallingLLMInit): ToolCallingLLM {
  // Bun's require of an ES module is synchronous; the bundler keeps it in a chunk of its own.
  const engine: typeof import("./tool-calling-llm.ts") = require("./tool-calling-llm.ts")
  return new engine.ToolCallingLLM(init)
}
