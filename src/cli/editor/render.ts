/**
 * Draws the prompt and the text being edited, wrapped at the terminal width, and puts the cursor
 * where the edit point is. Each draw goes back to the first row of the previous one and clears to
 * the end of the screen, so wrapped and multi-line texts redraw cleanly.
 */

/** Continuation lines of a multi-line text are indented under the prompt. */
const CONTINUATION = "  "

export type View = { prompt: string; text: string; cursor: number }

export class Renderer {
  readonly #write: (text: string) => void
  readonly #columns: () => number
  /** The row of the cursor relative to the first row of the last draw. */
  #cursorRow = 0

  constructor(write: (text: string) => void, columns: () => number) {
    this.#write = write
    this.#columns = columns
  }

  draw(view: View): void {
    const layout = layOut(view, Math.max(this.#columns(), 10))
    let out = `\r${this.#cursorRow > 0 ? `\x1b[${this.#cursorRow}A` : ""}\x1b[J${layout.text}`
    const up = layout.rows - 1 - layout.cursor.row
    out += `\r${up > 0 ? `\x1b[${up}A` : ""}${layout.cursor.col > 0 ? `\x1b[${layout.cursor.col}C` : ""}`
    this.#cursorRow = layout.cursor.row
    this.#write(out)
  }

  /** Moves below the drawn text (before printing anything else) and forgets it. */
  finish(view: View): void {
    const layout = layOut(view, Math.max(this.#columns(), 10))
    const down = layout.rows - 1 - this.#cursorRow
    this.#write(`${down > 0 ? `\x1b[${down}B` : ""}\r\n`)
    this.#cursorRow = 0
  }

  /** The screen was cleared or other text printed: the next draw starts where the cursor is. */
  reset(): void {
    this.#cursorRow = 0
  }
}

type Layout = { text: string; rows: number; cursor: { row: number; col: number } }

/** What to write, how many rows it takes, and where the edit point lands. */
function layOut(view: View, cols: number): Layout {
  const lines = view.text.split("\n")
  const before = view.text.slice(0, view.cursor).split("\n")
  const cursorLine = before.length - 1
  const cursorCol = width(before.at(-1) as string)
  let text = ""
  let rows = 0
  let cursor = { row: 0, col: 0 }
  lines.forEach((line, i) => {
    const prefix = i === 0 ? view.prompt : CONTINUATION
    const last = i === lines.length - 1
    if (i > 0) text += "\r\n"
    text += display(prefix) + display(line)
    const prefixWidth = width(stripAnsi(prefix))
    const lineWidth = prefixWidth + width(line)
    // A last line that ends exactly at the right margin leaves the cursor waiting to wrap: a
    // newline puts it on a fresh row, so the row arithmetic stays true.
    const exact = lineWidth > 0 && lineWidth % cols === 0
    if (i === cursorLine) {
      const at = prefixWidth + cursorCol
      cursor =
        exact && !last && at === lineWidth
          ? { row: rows + at / cols - 1, col: cols - 1 }
          : { row: rows + Math.floor(at / cols), col: at % cols }
    }
    rows += Math.max(1, Math.ceil(lineWidth / cols))
    if (exact && last) {
      text += "\r\n"
      rows++
    }
  })
  return { text, rows, cursor }
}

function width(text: string): number {
  return Bun.stringWidth(text)
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences in the prompt are measured without them
const ANSI = /\x1b\[[0-9;]*m/g

function stripAnsi(text: string): string {
  return text.replace(ANSI, "")
}

/** Text shown as typed, with any stray control character made visible instead of executed. */
function display(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: making controls visible is the point
    /[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g,
    (c) => `^${String.fromCharCode(c.charCodeAt(0) ^ 0x40)}`,
  )
}
