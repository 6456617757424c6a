/**
 * A counting semaphore over tool processes in this dupin process. A red-team request ran 2,793
 * processes at once; with slots the excess waits in arrival order, and a waiter whose signal
 * aborts leaves the queue without taking anything.
 */
export class ProcessSlots {
  #free: number
  readonly #queue: Array<{ count: number; grant: () => void }> = []

  constructor(readonly size: number) {
    this.#free = size
  }

  /**
   * Waits for `count` slots at once (a pipeline's stages run together, so taking them one by one
   * could deadlock two pipelines). Resolves to the release function, or null when aborted first.
   */
  acquire(count: number, signal?: AbortSignal): Promise<(() => void) | null> {
    if (count > this.size)
      return Promise.reject(new RangeError(`${count} processes exceed the cap of ${this.size}`))
    if (signal?.aborted) return Promise.resolve(null)
    return new Promise((resolve) => {
      const entry = {
        count,
        grant: () => {
          signal?.removeEventListener("abort", onAbort)
          resolve(this.#releaser(count))
        },
      }
      const onAbort = () => {
        const at = this.#queue.indexOf(entry)
        if (at >= 0) this.#queue.splice(at, 1)
        resolve(null)
        this.#pump()
      }
      signal?.addEventListener("abort", onAbort, { once: true })
      this.#queue.push(entry)
      this.#pump()
    })
  }

  get inUse(): number {
    return this.size - this.#free
  }

  #releaser(count: number): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      this.#free += count
      this.#pump()
    }
  }

  /** Strict FIFO: a large request at the head is not starved by small ones behind it. */
  #pump(): void {
    while (this.#queue.length > 0 && this.#queue[0]!.count <= this.#free) {
      const next = this.#queue.shift()!
      this.#free -= next.count
      next.grant()
    }
  }
}
