/**
 * The answer on stdout. Through a pipe (or with `--json`) it is printed once, raw. On a terminal
 * it streams in as the model writes it; at the end the streamed raw text is cleared and the
 * answer printed again rendered as markdown (unless colour is off, when the raw text already is
 * the answer). Text the model wrote before asking for tools is cleared too: progress shows it.
 * A streamed text that would outgrow the screen could not be cleared (it is in the scrollback):
 * it is taken off while it still fits and the rest is shown once, rendered, at the end.
 */
import { terminalSafe } from "../../commands/output.ts"
import { type Style, visible } from "../render/style.ts"
import type { TerminalFacts } from "../render/terminal.ts"

export type AnswerViewOptions = {
  facts: TerminalFacts
  style: Style
  /** Raw stdout (the text is made terminal-safe here). */
  write: (text: string) => void | Promise<void>
}

export class AnswerView {
  readonly #options: AnswerViewOptions
  /** The raw text on screen since the last clear, break line included. */
  #shown = ""
  #streamed = ""
  /** The answer outgrew the screen: no more raw text; it appears once, rendered, at the end. */
  #held = false

  constructor(options: AnswerViewOptions) {
    this.#options = options
  }

  /** Whether deltas are worth asking for: they are shown only on a terminal. */
  get streams(): boolean {
    return this.#options.facts.streamAnswer
  }

  /** A piece of the text the model is writing. */
  push(text: string): void {
    if (!this.streams) return
    const safe = terminalSafe(text)
    this.#streamed += safe
    if (this.#held) return
    if (this.#shown === "") this.#emit(`\n${this.#rule()}\n`)
    const { columns, rows } = this.#options.facts
    if (this.#options.facts.render && rowsOf(this.#shown + safe, columns()) >= rows() - 2) {
      // Still erasable now; one row more and it would stay in the scrollback twice.
      const streamed = this.#streamed
      this.#clear()
      this.#streamed = streamed
      this.#held = true
      this.#emit(this.#options.style.dim("(a long answer: shown when it is complete)"))
      return
    }
    this.#emit(safe)
  }

  /** The run failed or was stopped mid-text: what was written stays, the next line starts fresh. */
  abandon(): void {
    if (this.#shown !== "") void this.#options.write("\n")
    this.#reset()
  }

  /** The streamed text was the model's notes before tool calls, not the answer: take it off. */
  discard(): void {
    this.#clear()
  }

  /** Prints the final answer; returns once it is written. */
  async finish(answer: string): Promise<void> {
    const { facts, write } = this.#options
    const safe = terminalSafe(answer)
    if (!facts.streamAnswer) {
      await write(safe.endsWith("\n") ? safe : `${safe}\n`)
      return
    }
    // The renderer (marked-terminal with highlight.js's ~190 language modules, parse5 and
    // emojilib: ~2 MB, ~100 ms to load) loads with the first answer shown on a terminal; a pipe
    // never needs it.
    const body = facts.render
      ? (await import("../render/markdown.ts")).renderMarkdown(safe, Math.min(facts.columns(), 120))
      : ensureNewline(safe)
    if (this.#shown !== "" && !facts.render && !this.#held && this.#streamed === safe) {
      // Raw text was the wanted form and it is all on screen already.
      this.#reset()
      await write(safe.endsWith("\n") ? "" : "\n")
      return
    }
    // Cleared, or (taller than the screen) left in the scrollback above the rendered answer.
    this.#clear()
    await write(`\n${this.#rule()}\n${body}`)
  }

  #rule(): string {
    return this.#options.style.dim("─".repeat(Math.min(this.#options.facts.columns() - 1, 60)))
  }

  #emit(text: string): void {
    this.#shown += text
    void this.#options.write(text)
  }

  /** Erases the streamed text if it still fits on the screen; says whether it did. */
  #clear(): boolean {
    if (this.#shown === "") return true
    const rows = rowsOf(this.#shown, this.#options.facts.columns())
    const fits = rows < this.#options.facts.rows()
    // The cursor is on the last row of the text: go up to where it began, erase to the end.
    if (fits) void this.#options.write(`${rows > 0 ? `\x1b[${rows}A` : ""}\r\x1b[J`)
    this.#reset()
    return fits
  }

  #reset(): void {
    this.#shown = ""
    this.#streamed = ""
    this.#held = false
  }
}

const ensureNewline = (text: string) => (text.endsWith("\n") ? text : `${text}\n`)

/** How many rows up the first row of `text` is from where the cursor stands after writing it. */
function rowsOf(text: string, columns: number): number {
  const lines = visible(text).split("\n")
  let rows = 0
  for (const [i, line] of lines.entries()) {
    const wraps = Math.max(0, Math.ceil(line.length / columns) - 1)
    rows += wraps + (i < lines.length - 1 ? 1 : 0)
  }
  return rows
}
