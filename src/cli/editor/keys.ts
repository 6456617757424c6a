/**
 * Terminal input bytes to key events. Stateful: an escape sequence or a bracketed paste may be
 * split across reads, so an unfinished tail waits for the next chunk (`flush` gives a lone Esc up).
 */

export type KeyName =
  | "enter"
  | "backspace"
  | "delete"
  | "tab"
  | "escape"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"

export type Key =
  /** Printable text typed (several characters when typed faster than a read). */
  | { kind: "text"; text: string }
  /** Everything between `ESC [200~` and `ESC [201~`: one paste, newlines kept. */
  | { kind: "paste"; text: string }
  | { kind: "key"; name: KeyName; ctrl?: boolean; meta?: boolean }
  /** A control letter: `ctrl("a")` is Ctrl+A. */
  | { kind: "ctrl"; letter: string }
  /** Alt (Meta) with a letter, as terminals send it: ESC then the letter. */
  | { kind: "meta"; letter: string }

const PASTE_START = "\x1b[200~"
const PASTE_END = "\x1b[201~"

/** CSI/SS3 final bytes of the keys an editor cares about. */
const FINAL: Record<string, KeyName> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
}
/** `ESC [ n ~` keys. */
const TILDE: Record<string, KeyName> = { "1": "home", "7": "home", "4": "end", "8": "end", "3": "delete" }

export class KeyDecoder {
  #pending = ""
  #paste: string | undefined

  /** Decodes one chunk; keys that need more bytes stay pending. */
  push(chunk: string): Key[] {
    const keys: Key[] = []
    let input = this.#pending + chunk
    this.#pending = ""
    while (input.length > 0) {
      if (this.#paste !== undefined) {
        const end = input.indexOf(PASTE_END)
        if (end === -1) {
          // Keep a possible split end marker back; the rest is paste text.
          const keep = partialSuffix(input, PASTE_END)
          this.#paste += input.slice(0, input.length - keep)
          this.#pending = input.slice(input.length - keep)
          return keys
        }
        keys.push({ kind: "paste", text: normalizeNewlines(this.#paste + input.slice(0, end)) })
        this.#paste = undefined
        input = input.slice(end + PASTE_END.length)
        continue
      }
      if (input.startsWith(PASTE_START)) {
        this.#paste = ""
        input = input.slice(PASTE_START.length)
        continue
      }
      const parsed = parseOne(input)
      if (parsed === "incomplete") {
        this.#pending = input
        return keys
      }
      const [key, used] = parsed
      if (key) appendKey(keys, key)
      input = input.slice(used)
    }
    return keys
  }

  /** True when bytes wait for the rest of a sequence. */
  get pending(): boolean {
    return this.#pending.length > 0 && this.#paste === undefined
  }

  /** Gives up waiting: a lone pending ESC is the Escape key. */
  flush(): Key[] {
    if (!this.pending) return []
    const rest = this.#pending
    this.#pending = ""
    if (rest === "\x1b") return [{ kind: "key", name: "escape" }]
    // An unknown or cut sequence: drop it rather than insert escape bytes into the question.
    return []
  }
}

/** Consecutive printable characters become one text key. */
function appendKey(keys: Key[], key: Key): void {
  const last = keys.at(-1)
  if (key.kind === "text" && last?.kind === "text") last.text += key.text
  else keys.push(key)
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n")
}

/** Length of the longest suffix of `text` that is a proper prefix of `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n
  }
  return 0
}

type Parsed = [Key | undefined, number] | "incomplete"

function parseOne(input: string): Parsed {
  const c = input[0] as string
  const code = c.charCodeAt(0)
  if (c === "\x1b") return parseEscape(input)
  if (c === "\r" || c === "\n") return [{ kind: "key", name: "enter" }, 1]
  if (c === "\t") return [{ kind: "key", name: "tab" }, 1]
  if (c === "\x7f" || c === "\x08") return [{ kind: "key", name: "backspace" }, 1]
  if (code < 0x20) return [{ kind: "ctrl", letter: String.fromCharCode(code + 0x60) }, 1]
  // Other C1 controls never belong in a question.
  if (code >= 0x80 && code < 0xa0) return [undefined, 1]
  const cp = input.codePointAt(0) as number
  const width = cp > 0xffff ? 2 : 1
  return [{ kind: "text", text: input.slice(0, width) }, width]
}

function parseEscape(input: string): Parsed {
  if (input.length === 1) return "incomplete"
  const second = input[1] as string
  if (second === "[" || second === "O") {
    // CSI: parameters (digits and ;) then one final byte.
    let i = 2
    while (i < input.length && /[0-9;]/.test(input[i] as string)) i++
    if (i >= input.length) return "incomplete"
    const final = input[i] as string
    const params = input.slice(2, i).split(";")
    const mod = Number(params[1] ?? "1") - 1
    const modifiers = { ...(mod & 4 ? { ctrl: true } : {}), ...(mod & 2 ? { meta: true } : {}) }
    const used = i + 1
    if (final === "~") {
      const name = TILDE[params[0] ?? ""]
      return [name ? { kind: "key", name, ...modifiers } : undefined, used]
    }
    const name = FINAL[final]
    return [name ? { kind: "key", name, ...modifiers } : undefined, used]
  }
  if (second === "\r" || second === "\n") return [{ kind: "key", name: "enter", meta: true }, 2]
  if (second === "\x7f" || second === "\x08") return [{ kind: "key", name: "backspace", meta: true }, 2]
  if (second === "\x1b") return [{ kind: "key", name: "escape" }, 1]
  if (/[a-zA-Z]/.test(second)) return [{ kind: "meta", letter: second.toLowerCase() }, 2]
  return [{ kind: "key", name: "escape" }, 1]
}
