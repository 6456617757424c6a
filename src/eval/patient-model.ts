import { abortableSleep } from "../abort.ts"
import { ModelError } from "../errors.ts"
import type { ChatModel, Completion, CompletionRequest, ModelInfo, TextListener } from "../llm/types.ts"

export type Patience = {
  /** Extra attempts after the provider's own retries gave up on a rate limit. */
  attempts: number
  /** First wait; doubled after each further refusal. */
  baseDelayMs: number
}

/** A run of many cases in parallel meets rate limits a single question never does. */
export const DEFAULT_PATIENCE: Patience = { attempts: 6, baseDelayMs: 5_000 }

/**
 * A model that waits out rate limits instead of failing: an eval spends minutes on one provider
 * in parallel, and a 429 says nothing about how well dupin investigates, so it must not score as
 * a failure. Other provider errors pass through. `retries` counts the waits, for the report.
 */
export class PatientModel implements ChatModel {
  readonly name: string
  readonly info: ModelInfo
  retries = 0
  readonly #inner: ChatModel
  readonly #patience: Patience
  readonly #onWait: ((ms: number) => void) | undefined

  /** `onWait` hears of each wait before it starts (the case's deadline moves by as much). */
  constructor(inner: ChatModel, patience: Patience = DEFAULT_PATIENCE, onWait?: (ms: number) => void) {
    this.#inner = inner
    this.name = inner.name
    this.info = inner.info
    this.#patience = patience
    this.#onWait = onWait
  }

  async complete(
    request: CompletionRequest,
    signal?: AbortSignal,
    onText?: TextListener,
  ): Promise<Completion> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#inner.complete(request, signal, onText)
      } catch (error) {
        const limited = error instanceof ModelError && error.kind === "rate_limit"
        if (!limited || attempt >= this.#patience.attempts) throw error
        this.retries++
        const ms = this.#patience.baseDelayMs * 2 ** attempt
        this.#onWait?.(ms)
        await abortableSleep(ms, signal)
      }
    }
  }
}
