/**
 * What the runtime calls to turn a model's settings into a client. The client module pulls in the
 * openai SDK (~6 ms to evaluate), which `serve` needs only at the first chat, so it is loaded on
 * first use and the port is bound sooner. The lazy load stays inside llm/: every folder that needs
 * a model still shows its dependency on llm/ in the import graph.
 */
import type { CreateChatModelOptions } from "./factory.ts"
import type { ChatModel } from "./types.ts"

export type { CreateChatModelOptions } from "./factory.ts"

export function createChatModel(options: CreateChatModelOptions): ChatModel {
  // Bun's require of an ES module is synchronous; the bundler keeps it unevaluated until the call.
  const factory: typeof import("./factory.ts") = require("./factory.ts")
  return factory.createChatModel(options)
}
