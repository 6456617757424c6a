import type { RequestQuota } from "./request-quota.ts"

/**
 * A counting semaphore over tool processes in this dupin process. A red-team request ran 2,793
 * processes at once; with slots the excess waits in arrival order, and a waiter whose signal
 * aborts leaves the queue without taking anything.
 */
export class ProcessSlots {
  #free: number
  readonly #queue: Array<{ count: number; quota: RequestQuota | undefined; grant: () => void }> = []

  constructor(readonly size: number) {
    this.#free = size
  }

  /**
   * Waits for `count` slots at once (a pipeline's stages run together, so taking them one by one
   * could deadlock two pipelines). Resolves to the release function, or null when aborted first.
   */
  acquire(count: number, signal?: AbortSignal, quota?: RequestQuota): Promise<(() => void) | null> {
    if (count > this.size)
      return Promise.reject(new RangeError(`${count} processes exceed the cap of ${this.size}`))
    if (signal?.aborted) return Promise.resolve(null)
    return new Promise((resolve) => {
      const entry = {
        count,
        quota,
        grant: () => {
          signal?.removeEventListener("abort", onAbort)
          resolve(this.#releaser(count, quota))
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

  #releaser(count: number, quota: RequestQuota | undefined): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      this.#free += count
      if (quota) quota.inUse -= count
      this.#pump()
    }
  }

  /**
   * FIFO over the pool: a large pipeline at the head is not starved by small ones behind it. A
   * waiter held back only by its own request's quota is passed over, so one request at its share
   * never delays another request's call (R13).
   */
  #pump(): void {
    for (let i = 0; i < this.#queue.length; ) {
      const next = this.#queue[i]!
      if (next.count > this.#free) return
      if (next.quota && next.quota.inUse + next.count > Math.max(next.quota.slots, next.count)) {
        i++
        continue
      }
      this.#queue.splice(i, 1)
      this.#free -= next.count
      if (next.quota) next.quota.inUse += next.count
      next.grant()
    }
  }
}
