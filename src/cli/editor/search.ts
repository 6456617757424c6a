import type { History } from "./history.ts"
import type { Key } from "./keys.ts"
import type { View } from "./render.ts"

/** Searching: keep going; cancel: back to the text as it was; accept: take the match, then `replay`. */
export type SearchOutcome = "searching" | "cancel" | { accept: string; replay?: Key }

/**
 * Ctrl+R: reverse incremental search through history. Typing narrows, Ctrl+R again goes to an
 * older match, Enter runs the match, Esc/Ctrl+G cancels, any other key takes the match to edit.
 */
export class SearchState {
  readonly #history: History
  readonly #original: string
  #query = ""
  #index: number
  #match: string | undefined
  #failed = false

  constructor(history: History, original: string) {
    this.#history = history
    this.#original = original
    this.#index = history.entries.length
  }

  handle(key: Key): SearchOutcome {
    if (key.kind === "text" || key.kind === "paste") {
      this.#query += key.text
      this.#find(Math.min(this.#index + 1, this.#history.entries.length))
      return "searching"
    }
    if (key.kind === "ctrl" && key.letter === "r") {
      this.#find(this.#match === undefined ? this.#history.entries.length : this.#index)
      return "searching"
    }
    if (key.kind === "key" && key.name === "backspace") {
      this.#query = this.#query.slice(0, -1)
      this.#index = this.#history.entries.length
      this.#find(this.#index)
      return "searching"
    }
    if (
      (key.kind === "ctrl" && (key.letter === "g" || key.letter === "c")) ||
      (key.kind === "key" && key.name === "escape")
    )
      return "cancel"
    const accept = this.#match ?? this.#original
    return { accept, replay: key }
  }

  view(): View {
    const match = this.#match ?? ""
    const failed = this.#failed
    const at = this.#match === undefined ? 0 : Math.max(0, match.indexOf(this.#query))
    return {
      prompt: `(${failed ? "failed " : ""}reverse-i-search)'${this.#query}': `,
      text: match,
      cursor: at,
    }
  }

  #find(before: number): void {
    this.#failed = false
    if (this.#query === "") {
      this.#match = undefined
      return
    }
    const found = this.#history.search(this.#query, before)
    this.#failed = found === undefined
    if (!found) return
    this.#index = found.index
    this.#match = found.entry
  }
}
