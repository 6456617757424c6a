/**
 * The worker side of the queue: claims investigations from the store while fewer than
 * `max_concurrent` run here, keeps each one's lease alive while it runs, and records the outcome.
 * Every replica runs one; the store's atomic claim decides who runs what. A drain (SIGTERM) stops
 * claiming, lets running ones finish within the grace, then puts the rest back in the queue.
 */
import { errorMessage } from "../errors.ts"
import { log } from "../log.ts"
import type { Investigation, InvestigationResult } from "../store/investigation.ts"
import type { InvestigationStore } from "../store/store.ts"

export type RunOutcome =
  | { status: "done"; result: InvestigationResult }
  | { status: "failed"; error: string; result?: InvestigationResult }

export type QueueOptions = {
  store: InvestigationStore
  /** This replica's name on the leases it holds. */
  owner: string
  maxConcurrent: number
  leaseMs: number
  /** How often an idle worker looks for work intake elsewhere (another replica) queued. */
  pollMs: number
  run: (investigation: Investigation, signal: AbortSignal) => Promise<RunOutcome>
  /** After the outcome is stored (deliveries, metrics); not called when the lease was lost. */
  onFinished: (investigation: Investigation, outcome: RunOutcome) => void
  /** After each pass over the store (metrics refresh). */
  onTick?: () => void
}

/** The abort reason when this replica gives a run back: a drain ran out of time, or the lease was lost. */
export class RunGivenBack extends Error {
  constructor(readonly why: "draining" | "lease_lost") {
    super(
      why === "draining"
        ? "The server is shutting down; the investigation goes back to the queue."
        : "Another replica took over this investigation.",
    )
    this.name = "RunGivenBack"
  }
}

type Running = { investigation: Investigation; abort: AbortController; done: Promise<void> }

/**
 * Runs of one investigation before it is given up as failed. Each claim counts: a run cut short
 * by a crash, a drain or a lost lease is tried again, but one that kills its server every time
 * (memory) must not crash-loop it forever. Given up, it is still recorded and delivered.
 */
export const MAX_RUN_ATTEMPTS = 5

export class InvestigationQueue {
  readonly #o: QueueOptions
  readonly #running = new Map<string, Running>()
  #stopped = false
  #wake: (() => void) | undefined
  #loop: Promise<void> | undefined

  constructor(options: QueueOptions) {
    this.#o = options
  }

  get running(): number {
    return this.#running.size
  }

  start(): void {
    this.#loop ??= this.#work()
  }

  /** Looks for work now (intake just queued some) instead of at the next poll. */
  wake(): void {
    this.#wake?.()
  }

  /** Stops claiming; running ones get `graceMs` to finish, then go back to the queue. */
  async drain(graceMs: number): Promise<void> {
    this.#stopped = true
    this.wake()
    await this.#loop
    const all = () => Promise.all([...this.#running.values()].map((r) => r.done))
    const finished = await Promise.race([all().then(() => true), Bun.sleep(graceMs).then(() => false)])
    if (finished) return
    for (const run of this.#running.values()) run.abort.abort(new RunGivenBack("draining"))
    await Promise.race([all(), Bun.sleep(5_000)])
  }

  async #work(): Promise<void> {
    let failures = 0
    while (!this.#stopped) {
      try {
        while (!this.#stopped && this.#running.size < this.#o.maxConcurrent) {
          const investigation = await this.#o.store.claim(this.#o.owner, this.#o.leaseMs)
          if (!investigation) break
          this.#launch(investigation)
        }
        failures = 0
        this.#o.onTick?.()
      } catch (error) {
        // The store is unreachable (PostgreSQL restarting): keep trying, with growing pauses.
        failures++
        log.error("investigation queue: store unavailable", { error: errorMessage(error), failures })
      }
      if (this.#stopped) break
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#o.pollMs * Math.min(2 ** failures, 30))
        this.#wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.#wake = undefined
    }
  }

  #launch(investigation: Investigation): void {
    const { store, owner, leaseMs } = this.#o
    const abort = new AbortController()
    log.info("investigation running", {
      id: investigation.id,
      fingerprint: investigation.fingerprint,
      attempt: investigation.attempts,
      queued_ms: Date.now() - investigation.createdAt,
    })
    const heartbeat = setInterval(
      () => {
        store.renew(investigation.id, owner, leaseMs).then(
          (held) => {
            if (!held && !abort.signal.aborted) abort.abort(new RunGivenBack("lease_lost"))
          },
          (error: unknown) =>
            log.warn("could not renew a lease", { id: investigation.id, error: errorMessage(error) }),
        )
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    )
    const done = (async () => {
      let outcome: RunOutcome
      try {
        outcome =
          investigation.attempts > MAX_RUN_ATTEMPTS
            ? {
                status: "failed",
                error: `Given up: the investigation was interrupted ${investigation.attempts - 1} times (a crash, a shutdown or a lost lease each time).`,
              }
            : await this.#o.run(investigation, abort.signal)
      } catch (error) {
        outcome = { status: "failed", error: errorMessage(error) }
      } finally {
        clearInterval(heartbeat)
      }
      const reason = abort.signal.reason
      if (reason instanceof RunGivenBack) {
        if (reason.why === "draining") {
          await store.release(investigation.id, owner).catch(() => false)
          log.info("investigation requeued", { id: investigation.id, reason: "shutdown" })
        } else log.warn("investigation lease lost", { id: investigation.id })
        return
      }
      const stored = await store.finish(investigation.id, owner, outcome).catch((error: unknown) => {
        log.error("could not store an investigation's outcome", {
          id: investigation.id,
          error: errorMessage(error),
        })
        return false
      })
      if (!stored) return
      const fields = {
        id: investigation.id,
        fingerprint: investigation.fingerprint,
        duration_ms: Date.now() - (investigation.startedAt ?? Date.now()),
      }
      if (outcome.status === "done") log.info("investigation done", fields)
      else log.warn("investigation failed", { ...fields, error: outcome.error })
      this.#o.onFinished(investigation, outcome)
    })().finally(() => {
      this.#running.delete(investigation.id)
      this.wake()
    })
    this.#running.set(investigation.id, { investigation, abort, done })
  }
}
