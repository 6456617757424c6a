import { terminalSafe } from "../../commands/output.ts"
import type { LineReader, ReadOptions } from "../ask/line-reader.ts"
import { EditBuffer } from "./buffer.ts"
import { handleEditKey } from "./edit-keys.ts"
import type { History } from "./history.ts"
import { type Key, KeyDecoder } from "./keys.ts"
import { Renderer, type View } from "./render.ts"
import { SearchState } from "./search.ts"

export type TerminalInput = NodeJS.ReadableStream & { setRawMode?: (raw: boolean) => unknown }

export type EditorOptions = {
  input: TerminalInput
  write: (text: string) => void
  columns: () => number
  history: History
  /** Completions for Tab: whole replacement texts for the current text (slash commands). */
  complete: (text: string) => string[]
  /** Ctrl+C with nothing to cancel (an empty prompt) or during a run's question (an approval). */
  onInterrupt: () => void
}

/** How long a lone ESC waits for the rest of a sequence before it counts as the Escape key. */
const ESC_WAIT_MS = 40
const BRACKETED_PASTE_ON = "\x1b[?2004h"
const BRACKETED_PASTE_OFF = "\x1b[?2004l"

export type Active = {
  prompt: string
  buffer: EditBuffer
  history: boolean
  /** Position while browsing history with Up/Down; entries.length is the draft being typed. */
  browse: number
  draft: string
  search: SearchState | undefined
  /** A run's question (an approval): Ctrl+C interrupts the run even with text typed. */
  runQuestion: boolean
  done: (line: string | null) => void
}

/**
 * The `> ` prompt's line editor: raw mode only while a line is being read, so during a run the
 * terminal is back in cooked mode and Ctrl+C is the kernel's SIGINT again (the run's stop).
 * Bracketed paste is switched on with raw mode, so a pasted log arrives as one edit, not lines.
 */
export class LineEditor implements LineReader {
  readonly #options: EditorOptions
  readonly #decoder = new KeyDecoder()
  readonly #renderer: Renderer
  /** Bytes typed while no line was being read (type-ahead during a run). */
  readonly #queued: string[] = []
  #active: Active | undefined
  #closed = false
  #raw = false
  #escTimer: ReturnType<typeof setTimeout> | undefined

  constructor(options: EditorOptions) {
    this.#options = options
    this.#renderer = new Renderer(options.write, options.columns)
    options.input.setEncoding?.("utf8")
    options.input.on("data", (chunk: string | Buffer) => this.#onData(String(chunk)))
    options.input.on("end", () => {
      this.#closed = true
      this.#finish(null)
    })
    // Ended from inside a read (a second Ctrl+C exits): the shell gets its terminal back as it was.
    process.on("exit", () => {
      if (this.#raw) this.#rawMode(false)
    })
  }

  read(prompt: string, options: ReadOptions = {}): Promise<string | null> {
    if (options.fresh) this.#queued.length = 0
    // Leading newlines are written once; the rest is what each redraw repeats. A prompt can
    // carry a model-chosen tool argument (approvals): no control character of it reaches the
    // terminal.
    const visible = terminalSafe(prompt.replace(/^\n+/, ""))
    this.#options.write(prompt.slice(0, prompt.length - visible.length))
    if (this.#closed || options.signal?.aborted) return Promise.resolve(null)
    return new Promise((resolve) => {
      const signal = options.signal
      const onAbort = () => this.#finish(null)
      signal?.addEventListener("abort", onAbort, { once: true })
      const entries = this.#options.history.entries.length
      this.#active = {
        prompt: visible,
        buffer: new EditBuffer(),
        history: options.history === true,
        browse: entries,
        draft: "",
        search: undefined,
        runQuestion: signal !== undefined,
        done: (line) => {
          signal?.removeEventListener("abort", onAbort)
          resolve(line)
        },
      }
      this.#rawMode(true)
      this.#renderer.reset()
      this.#draw()
      const typedAhead = this.#queued.splice(0).join("")
      if (typedAhead) this.#onData(typedAhead)
    })
  }

  #onData(chunk: string): void {
    if (!this.#active) {
      this.#queued.push(chunk)
      return
    }
    clearTimeout(this.#escTimer)
    for (const key of this.#decoder.push(chunk)) {
      if (!this.#active) {
        // The line was submitted mid-chunk: the rest is type-ahead for the next prompt.
        break
      }
      this.#handle(key)
    }
    if (this.#decoder.pending) {
      this.#escTimer = setTimeout(() => {
        for (const key of this.#decoder.flush()) if (this.#active) this.#handle(key)
      }, ESC_WAIT_MS)
    }
  }

  #handle(key: Key): void {
    const active = this.#active as Active
    if (active.search) {
      const outcome = active.search.handle(key)
      if (outcome === "searching") {
        this.#draw()
        return
      }
      const { buffer } = active
      active.search = undefined
      if (outcome === "cancel") {
        this.#draw()
        return
      }
      buffer.set(outcome.accept)
      if (outcome.replay === undefined) {
        this.#draw()
        return
      }
      this.#handle(outcome.replay)
      return
    }
    handleEditKey(this, active, key)
  }

  /** Ends the current read with `line` (null: end of input or interrupted). */
  submit(line: string | null): void {
    const active = this.#active
    if (!active) return
    if (line !== null && active.history) this.#options.history.add(line)
    this.#finish(line)
  }

  #finish(line: string | null): void {
    const active = this.#active
    if (!active) return
    this.#active = undefined
    this.#renderer.finish(this.#view(active))
    this.#rawMode(false)
    active.done(line)
  }

  /** Ctrl+C: cancel the typed line, or with nothing typed hand it on (stop a run, exit). */
  interrupt(): void {
    const active = this.#active as Active
    if (active.buffer.text !== "" && !active.runQuestion) {
      this.#options.write("^C")
      this.#renderer.finish(this.#view(active))
      active.buffer.set("")
      active.browse = this.#options.history.entries.length
      this.#draw()
      return
    }
    this.#renderer.finish(this.#view(active))
    this.#renderer.reset()
    this.#options.onInterrupt()
    // Still reading (a first press at an empty prompt): the prompt comes back below the notice.
    if (this.#active === active) this.#draw()
  }

  clearScreen(): void {
    this.#options.write("\x1b[H\x1b[2J")
    this.#renderer.reset()
    this.#draw()
  }

  /** Prints `text` below the line being edited, then draws the line again. */
  notice(text: string): void {
    const active = this.#active as Active
    this.#renderer.finish(this.#view(active))
    this.#options.write(terminalSafe(text))
    this.#draw()
  }

  startSearch(): void {
    const active = this.#active as Active
    if (!active.history) return
    active.search = new SearchState(this.#options.history, active.buffer.text)
    this.#draw()
  }

  get history(): History {
    return this.#options.history
  }

  completions(text: string): string[] {
    return this.#options.complete(text)
  }

  draw(): void {
    this.#draw()
  }

  #draw(): void {
    const active = this.#active
    if (active) this.#renderer.draw(this.#view(active))
  }

  #view(active: Active): View {
    if (active.search) return active.search.view()
    return { prompt: active.prompt, text: active.buffer.text, cursor: active.buffer.cursor }
  }

  #rawMode(on: boolean): void {
    const input = this.#options.input
    if (!input.setRawMode) return
    try {
      this.#raw = on
      input.setRawMode(on)
      this.#options.write(on ? BRACKETED_PASTE_ON : BRACKETED_PASTE_OFF)
    } catch {
      // The terminal went away (hang-up): nothing left to restore.
    }
  }
}
