/**
 * The text being edited and the cursor in it (a UTF-16 index that never splits a surrogate
 * pair). Lines are separated by "\n" (Alt+Enter, a trailing `\`, a paste); Home/End and Ctrl+A/E
 * work on the cursor's line. Kills go to a one-entry kill ring that Ctrl+Y yanks back.
 */
export class EditBuffer {
  text = ""
  cursor = 0
  #killed = ""

  set(text: string): void {
    this.text = text
    this.cursor = text.length
  }

  insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor)
    this.cursor += text.length
  }

  left(): void {
    this.cursor = previousIndex(this.text, this.cursor)
  }

  right(): void {
    this.cursor = nextIndex(this.text, this.cursor)
  }

  lineStart(): void {
    this.cursor = this.text.lastIndexOf("\n", this.cursor - 1) + 1
  }

  lineEnd(): void {
    const nl = this.text.indexOf("\n", this.cursor)
    this.cursor = nl === -1 ? this.text.length : nl
  }

  /** Alt+B, Ctrl/Alt+Left: to the start of this or the previous word. */
  wordLeft(): void {
    this.cursor = wordStartBefore(this.text, this.cursor)
  }

  /** Alt+F, Ctrl/Alt+Right: past the end of this or the next word. */
  wordRight(): void {
    this.cursor = wordEndAfter(this.text, this.cursor)
  }

  backspace(): void {
    this.#delete(previousIndex(this.text, this.cursor), this.cursor, false)
  }

  deleteForward(): void {
    this.#delete(this.cursor, nextIndex(this.text, this.cursor), false)
  }

  /** Ctrl+K: to the end of the line. */
  killToEnd(): void {
    const nl = this.text.indexOf("\n", this.cursor)
    const end = nl === -1 ? this.text.length : nl === this.cursor ? nl + 1 : nl
    this.#delete(this.cursor, end, true)
  }

  /** Ctrl+U: to the start of the line. */
  killToStart(): void {
    this.#delete(this.text.lastIndexOf("\n", this.cursor - 1) + 1, this.cursor, true)
  }

  /** Ctrl+W: the whitespace-separated word before the cursor (a path or flag goes whole). */
  killBigWordLeft(): void {
    let start = this.cursor
    while (start > 0 && /\s/.test(this.text[start - 1] as string)) start--
    while (start > 0 && !/\s/.test(this.text[start - 1] as string)) start--
    this.#delete(start, this.cursor, true)
  }

  /** Alt+Backspace: the word before the cursor (letters and digits). */
  killWordLeft(): void {
    this.#delete(wordStartBefore(this.text, this.cursor), this.cursor, true)
  }

  /** Alt+D: the word after the cursor. */
  killWordRight(): void {
    this.#delete(this.cursor, wordEndAfter(this.text, this.cursor), true)
  }

  /** Ctrl+Y: the last killed text back at the cursor. */
  yank(): void {
    if (this.#killed) this.insert(this.#killed)
  }

  /** The cursor's line index (0-based) and the number of lines. */
  get lineInfo(): { line: number; lines: number } {
    const before = this.text.slice(0, this.cursor)
    return { line: before.split("\n").length - 1, lines: this.text.split("\n").length }
  }

  /** Up/Down inside a multi-line text: the same column on the line above or below. */
  moveLine(delta: -1 | 1): void {
    const lines = this.text.split("\n")
    const { line } = this.lineInfo
    const target = line + delta
    if (target < 0 || target >= lines.length) return
    const column = this.cursor - (this.text.lastIndexOf("\n", this.cursor - 1) + 1)
    let start = 0
    for (let i = 0; i < target; i++) start += (lines[i] as string).length + 1
    this.cursor = start + Math.min(column, (lines[target] as string).length)
  }

  #delete(from: number, to: number, kill: boolean): void {
    if (to <= from) return
    if (kill) this.#killed = this.text.slice(from, to)
    this.text = this.text.slice(0, from) + this.text.slice(to)
    this.cursor = from
  }
}

const WORD = /[\p{L}\p{N}_]/u

function previousIndex(text: string, i: number): number {
  if (i <= 0) return 0
  const low = text.charCodeAt(i - 1)
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? i - 2 : i - 1
}

function nextIndex(text: string, i: number): number {
  if (i >= text.length) return text.length
  const high = text.charCodeAt(i)
  return high >= 0xd800 && high <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1
}

function wordStartBefore(text: string, i: number): number {
  let j = i
  while (j > 0 && !WORD.test(text[j - 1] as string)) j--
  while (j > 0 && WORD.test(text[j - 1] as string)) j--
  return j
}

function wordEndAfter(text: string, i: number): number {
  let j = i
  while (j < text.length && !WORD.test(text[j] as string)) j++
  while (j < text.length && WORD.test(text[j] as string)) j++
  return j
}
