/**
 * Rebuilds one chat completion from the chunks of a streamed reply (`stream: true`). The chunks
 * are folded into the shape of a non-streamed response, which `fromWireResponse` then maps, so a
 * streamed and a non-streamed call end in the same Completion (content, reasoning, tool calls,
 * finish reason, usage).
 */

import { isRecord } from "../is-record.ts"
import type { Completion } from "./types.ts"
import { fromWireResponse } from "./wire.ts"

type PartialCall = { id?: string; type?: string; name: string; arguments: string }

export class CompletionAssembler {
  #content: string | null = null
  #reasoning: string | null = null
  #finishReason: unknown = null
  #usage: unknown
  #sawChoice = false
  /** By the `index` each tool-call delta carries: a call's name and arguments arrive in pieces. */
  readonly #calls = new Map<number, PartialCall>()

  /** Folds one chunk in; returns the answer text it added, if any. */
  push(chunk: unknown): string | undefined {
    if (!isRecord(chunk)) return undefined
    // With include_usage, the last chunk has no choices and carries the usage of the whole call.
    if (isRecord(chunk.usage)) this.#usage = chunk.usage
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined
    if (!isRecord(choice)) return undefined
    this.#sawChoice = true
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason
    const delta = isRecord(choice.delta) ? choice.delta : {}
    const reasoning = stringOr(delta.reasoning_content) ?? stringOr(delta.reasoning)
    if (reasoning) this.#reasoning = (this.#reasoning ?? "") + reasoning
    if (Array.isArray(delta.tool_calls)) for (const raw of delta.tool_calls) this.#addCall(raw)
    const text = stringOr(delta.content)
    if (text === undefined) return undefined
    this.#content = (this.#content ?? "") + text
    return text === "" ? undefined : text
  }

  /** The completion the chunks add up to; an empty stream is an `invalid_response` like an empty body. */
  finish(modelId: string): Completion {
    const toolCalls = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({
        ...(call.id ? { id: call.id } : {}),
        type: call.type ?? "function",
        function: { name: call.name, arguments: call.arguments },
      }))
    const message: Record<string, unknown> = { role: "assistant", content: this.#content }
    if (this.#reasoning !== null) message.reasoning_content = this.#reasoning
    if (toolCalls.length > 0) message.tool_calls = toolCalls
    const response = {
      choices: this.#sawChoice ? [{ index: 0, message, finish_reason: this.#finishReason }] : [],
      usage: this.#usage,
    }
    return fromWireResponse(response, modelId)
  }

  #addCall(raw: unknown): void {
    if (!isRecord(raw)) return
    const index = typeof raw.index === "number" ? raw.index : this.#calls.size
    const call = this.#calls.get(index) ?? { name: "", arguments: "" }
    const id = stringOr(raw.id)
    if (id) call.id = id
    const type = stringOr(raw.type)
    if (type) call.type = type
    const fn = isRecord(raw.function) ? raw.function : {}
    call.name += stringOr(fn.name) ?? ""
    call.arguments += stringOr(fn.arguments) ?? ""
    this.#calls.set(index, call)
  }
}

const stringOr = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
