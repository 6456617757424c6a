/**
 * A case's deadline that can be pushed back: time spent waiting out a provider's rate limit is the
 * provider's quota, not the case's, so it does not count against the case (nor in its latency).
 */
export class Deadline {
  readonly #controller = new AbortController()
  #timer: ReturnType<typeof setTimeout>
  #due: number
  /** Milliseconds added by `extend`, so far. */
  extended = 0

  constructor(ms: number) {
    this.#due = performance.now() + ms
    this.#timer = setTimeout(() => this.#controller.abort(), ms)
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  extend(ms: number): void {
    if (this.signal.aborted) return
    this.extended += ms
    this.#due += ms
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => this.#controller.abort(), Math.max(0, this.#due - performance.now()))
  }

  clear(): void {
    clearTimeout(this.#timer)
  }
}
