/** How soon a second Ctrl+C must follow the first to exit rather than just stop the run. */
const DOUBLE_PRESS_MS = 2000

export type InterruptOptions = {
  write: (text: string) => void
  /** Ends the process with 130 (the shell's "stopped by SIGINT"). */
  exit: () => void
  /** Whether a prompt waits for the user afterwards; without one, nothing is left to return to. */
  interactive: boolean
  now?: () => number
}

/**
 * Ctrl+C: the first press aborts the current run (the model call and every tool process group,
 * through the run's AbortSignal) and returns to the prompt; a second press within 2 s exits.
 */
export class Interrupts {
  readonly #options: InterruptOptions
  readonly #now: () => number
  #run: AbortController | undefined
  #lastPress = Number.NEGATIVE_INFINITY
  readonly #onSignal = () => this.press()

  constructor(options: InterruptOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  install(): void {
    process.on("SIGINT", this.#onSignal)
  }

  uninstall(): void {
    process.off("SIGINT", this.#onSignal)
  }

  /** A fresh signal for one run; `end` it when the run is over. */
  begin(): AbortController {
    this.#run = new AbortController()
    return this.#run
  }

  /** The signal of the run in progress, if any. */
  get signal(): AbortSignal | undefined {
    return this.#run?.signal
  }

  end(): void {
    this.#run = undefined
  }

  /**
   * One Ctrl+C: a SIGINT in cooked mode, or the line editor's Ctrl+C (`fromEditor`), which has
   * already moved below its line and draws the prompt again itself.
   */
  press(fromEditor = false): void {
    const now = this.#now()
    const double = now - this.#lastPress < DOUBLE_PRESS_MS
    this.#lastPress = now
    const run = this.#run
    if (double || (!run && !this.#options.interactive)) {
      this.#options.write("\n")
      this.#options.exit()
      return
    }
    if (run && !run.signal.aborted) {
      run.abort()
      this.#options.write("\n^C stopping… (press Ctrl+C again to exit)\n")
      return
    }
    this.#options.write(
      fromEditor
        ? "(press Ctrl+C again to exit, or type exit)\n"
        : "\n(press Ctrl+C again to exit, or type exit)\n> ",
    )
  }
}
