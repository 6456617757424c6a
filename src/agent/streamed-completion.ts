import type { ChatModel, Completion, CompletionRequest } from "../llm/types.ts"
import type { EngineEvent } from "./events.ts"

/**
 * One model call of the loop. With `streamText`, the text the model writes is yielded as
 * `ai_message_delta` events while the call is pending: the model reports pieces through a
 * callback, which fills a queue this generator drains. The return value is the completion.
 */
export async function* completeStep(
  model: ChatModel,
  request: CompletionRequest,
  signal: AbortSignal,
  streamText: boolean,
): AsyncGenerator<EngineEvent, Completion> {
  if (!streamText) return await model.complete(request, signal)
  let queued = ""
  let settled = false
  let wake: (() => void) | undefined
  const pending = model.complete(request, signal, (text) => {
    queued += text
    wake?.()
  })
  // Observed here so a failure is not unhandled while the generator waits; rethrown by `await pending`.
  pending.then(
    () => {
      settled = true
      wake?.()
    },
    () => {
      settled = true
      wake?.()
    },
  )
  let streamed = false
  for (;;) {
    if (queued !== "") {
      // Pieces that arrived together go out as one event.
      const content = queued
      queued = ""
      streamed = true
      yield { event: "ai_message_delta", data: { content } }
      continue
    }
    if (settled) break
    await new Promise<void>((resolve) => {
      wake = resolve
    })
    wake = undefined
  }
  const completion = await pending
  // A model that cannot stream (a scripted one) still honours the contract: one delta, the whole text.
  if (!streamed && completion.content) {
    yield { event: "ai_message_delta", data: { content: completion.content } }
  }
  return completion
}
