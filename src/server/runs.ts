import { DupinError } from "../errors.ts"

/** The abort reason when the server ends a run during shutdown (a stream then gets an `error` event). */
export class ServerShuttingDown extends DupinError {
  readonly status = 503
  readonly errorCode = 1
  constructor() {
    super("The server is shutting down; the request was stopped. Send it again.")
    this.name = "ServerShuttingDown"
  }
}

/** The abort reason when the client hung up: nobody is left to tell. */
export class ClientGone extends Error {
  constructor() {
    super("The client disconnected.")
    this.name = "ClientGone"
  }
}

type Run = { abort: AbortController; done: Promise<void> }

/**
 * The chat runs in progress, so shutdown can let them finish within a grace period and then end
 * the rest, and so `/metrics` and `/readyz` know about them.
 */
export class ActiveRuns {
  readonly #runs = new Set<Run>()
  #closing = false
  #draining = false

  get size(): number {
    return this.#runs.size
  }

  /** True once shutdown began: new chats are refused. */
  get closing(): boolean {
    return this.#closing
  }

  /**
   * True from the moment a drain starts (lame duck included): `/readyz` answers 503 and replies
   * carry `Connection: close`, while new chats are still served until `closing`.
   */
  get draining(): boolean {
    return this.#draining || this.#closing
  }

  /** Starts the lame-duck phase of a drain (CONTRACT §5): nothing is refused yet. */
  enterLameDuck(): void {
    this.#draining = true
  }

  /** Tracks a run until `done` settles. */
  track(abort: AbortController, done: Promise<unknown>): void {
    const run: Run = { abort, done: done.then(noop, noop) }
    this.#runs.add(run)
    void run.done.then(() => this.#runs.delete(run))
  }

  /**
   * Waits up to `graceMs` for the runs to finish, then aborts the rest with ServerShuttingDown
   * and waits (briefly) for them to report it.
   */
  async drain(graceMs: number, reportMs = 5_000): Promise<void> {
    this.#closing = true
    if (
      await settleWithin(
        [...this.#runs].map((r) => r.done),
        graceMs,
      )
    )
      return
    const left = [...this.#runs]
    for (const run of left) run.abort.abort(new ServerShuttingDown())
    await settleWithin(
      left.map((r) => r.done),
      reportMs,
    )
  }
}

async function settleWithin(promises: Promise<void>[], ms: number): Promise<boolean> {
  if (promises.length === 0) return true
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([Promise.all(promises).then(() => true), timeout])
  } finally {
    clearTimeout(timer)
  }
}

function noop(): void {}
