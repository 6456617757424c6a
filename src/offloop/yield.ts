/**
 * A turn for the event loop in the middle of long work on the main thread: pending I/O (a
 * /healthz probe, another request's socket) runs before the work goes on. setImmediate, not a
 * microtask: promise callbacks run before I/O is polled and would not let anything in.
 */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** Work on the main thread between turns of the event loop (a /healthz probe waits this long at most). */
const SLICE_MS = 5

/**
 * Cuts long main-thread work into slices: `tick()` between small units of work yields once the
 * slice is used up, and throws if the signal was aborted meanwhile.
 */
export class Slicer {
  #since = performance.now()

  constructor(private readonly signal?: AbortSignal) {}

  async tick(): Promise<void> {
    if (performance.now() - this.#since < SLICE_MS) return
    await yieldToLoop()
    this.signal?.throwIfAborted()
    this.#since = performance.now()
  }
}
