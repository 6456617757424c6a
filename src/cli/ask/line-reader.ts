import { createInterface } from "node:readline"

export type ReadOptions = {
  /** Drop lines typed before the prompt appeared (an approval answers the question on screen). */
  fresh?: boolean
  /** Resolves null when it aborts (Ctrl+C during a run's question). */
  signal?: AbortSignal | undefined
  /** Up/Down and Ctrl+R browse the question history, and the line is added to it. */
  history?: boolean
}

/** Reads one line after a prompt; null at end of input or when the read's signal aborts. */
export type LineReader = {
  read(prompt: string, options?: ReadOptions): Promise<string | null>
}

/**
 * Reads lines without an editor: a terminal that cannot take escape sequences (`TERM=dumb`).
 * The terminal stays in cooked mode (readline's `terminal:
 * false`): the kernel does line editing, Ctrl+D is end of input and Ctrl+C stays a real SIGINT
 * even while a run is going, which raw mode would swallow.
 */
export class PlainLineReader implements LineReader {
  readonly #write: (text: string) => void
  readonly #queued: string[] = []
  #waiting: ((line: string | null) => void) | undefined
  #closed = false

  constructor(input: NodeJS.ReadableStream, write: (text: string) => void) {
    this.#write = write
    const rl = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY })
    rl.on("line", (line) => {
      const waiting = this.#waiting
      this.#waiting = undefined
      if (waiting) waiting(line)
      else this.#queued.push(line)
    })
    rl.on("close", () => {
      this.#closed = true
      const waiting = this.#waiting
      this.#waiting = undefined
      waiting?.(null)
    })
  }

  /**
   * Shows `prompt` and resolves with the next line, or null at end of input or when `signal`
   * aborts (Ctrl+C while a question waits). `fresh` drops lines typed before the prompt appeared:
   * an approval must be answered to the question on screen, not by text typed during the run.
   */
  read(prompt: string, options: ReadOptions = {}): Promise<string | null> {
    if (options.fresh) this.#queued.length = 0
    this.#write(prompt)
    const queued = this.#queued.shift()
    if (queued !== undefined) return Promise.resolve(queued)
    if (this.#closed || options.signal?.aborted) return Promise.resolve(null)
    return new Promise((resolve) => {
      const signal = options.signal
      const onAbort = () => {
        if (this.#waiting !== settle) return
        this.#waiting = undefined
        resolve(null)
      }
      const settle = (line: string | null) => {
        signal?.removeEventListener("abort", onAbort)
        resolve(line)
      }
      this.#waiting = settle
      signal?.addEventListener("abort", onAbort, { once: true })
    })
  }
}
