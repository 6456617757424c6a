/**
 * Whether a sed script stays inside the small subset dupin lets run without approval; the
 * problem, in words, when it does not (undefined = accepted).
 *
 * The subset is a grammar, not a scan for danger: a script runs unasked only when every byte of it
 * parses here, and everything else (labels, branches, `a`/`i`/`c` text, `e`, `r`/`R`, `w`/`W`,
 * `F`, `v`, `z`, `l`, `\cREGEXc` addresses, unknown `s` flags...) needs a human. The reading follows
 * GNU sed's compile.c: commands end at `;`, newline or `}`; a regex ends at its delimiter unless
 * escaped, and (since 4.9) not inside a bracket expression, so brackets are accepted only where
 * every reading agrees on where they end.
 *
 *   script   := { sep | '#' comment | command }
 *   command  := [address [',' address2]] ws ['!' ws] body
 *   address  := number ['~' number] | '$' | '/' regex '/' {'I' | 'M'}
 *   address2 := address | '+' number | '~' number
 *   body     := '{' | '}' | s | y | one of "=dDgGhHnNpPx" | ('q' | 'Q') [ws number]
 */
export function sedScriptProblem(script: string): string | undefined {
  try {
    new SedReader(script).script()
    return undefined
  } catch (error) {
    if (error instanceof Refused) return error.message
    throw error
  }
}

class Refused extends Error {}

/** Delimiters of `s`/`y` that are nothing else in a regex or replacement. */
const DELIMITERS = new Set([..."/|,:#@%!_~=+"])
const SIMPLE_COMMANDS = new Set([..."=dDgGhHnNpPx"])
/** Plain `s` flags: global, print, case-insensitive, the n-th match. Not e, w, m/M. */
const S_FLAGS = /^[gpiI0-9]$/

class SedReader {
  #i = 0
  #depth = 0

  constructor(readonly text: string) {}

  script(): void {
    const s = this.text
    while (this.#i < s.length) {
      const c = s[this.#i]!
      // GNU skips any whitespace and `;` between commands.
      if (c === ";" || /[ \t\n\v\f\r]/.test(c)) {
        this.#i++
        continue
      }
      if (c === "#") {
        this.#comment()
        continue
      }
      this.#command()
    }
    if (this.#depth !== 0) this.#refuse("an unclosed { block")
  }

  #command(): void {
    const hasAddress = this.#address(false)
    this.#blanks()
    if (hasAddress && this.#peek() === ",") {
      this.#i++
      this.#blanks()
      if (!this.#address(true)) this.#refuse("a range without a second address")
      this.#blanks()
    }
    if (this.#peek() === "!") {
      this.#i++
      this.#blanks()
    }
    const cmd = this.text[this.#i++]
    if (cmd === undefined) this.#refuse("an address without a command")
    if (cmd === "{") {
      this.#depth++
      return
    }
    if (cmd === "}") {
      if (hasAddress) this.#refuse("an address before }")
      if (--this.#depth < 0) this.#refuse("an unopened }")
    } else if (cmd === "s") this.#substitute()
    else if (cmd === "y") this.#transliterate()
    else if (cmd === "q" || cmd === "Q") {
      this.#blanks()
      this.#digits()
    } else if (!SIMPLE_COMMANDS.has(cmd)) {
      this.#refuse(`the ${JSON.stringify(cmd)} command, which is outside the allowed subset`)
    }
    this.#endOfCommand(cmd)
  }

  /** True when an address was read. `second` also allows GNU's `+N` and `~N`. */
  #address(second: boolean): boolean {
    const c = this.#peek()
    if (c === undefined) return false
    if (/[0-9]/.test(c)) {
      this.#digits()
      if (this.#peek() === "~") {
        this.#i++
        if (!this.#digits()) this.#refuse("a first~step address without a step")
      }
      return true
    }
    if (second && (c === "+" || c === "~")) {
      this.#i++
      if (!this.#digits()) this.#refuse(`a ${c}N address without a number`)
      return true
    }
    if (c === "$") {
      this.#i++
      return true
    }
    if (c === "/") {
      this.#i++
      this.#part("/", true)
      while (this.#peek() === "I" || this.#peek() === "M") this.#i++
      return true
    }
    if (c === "\\") this.#refuse("a \\cREGEXc address")
    return false
  }

  #substitute(): void {
    const delim = this.#delimiter("s")
    this.#part(delim, true)
    this.#part(delim, false)
    while (this.#i < this.text.length && S_FLAGS.test(this.text[this.#i]!)) this.#i++
    const next = this.#peek()
    if (next !== undefined && /[a-zA-Z]/.test(next))
      this.#refuse(`the s///${next} flag, which is outside the allowed subset`)
  }

  #transliterate(): void {
    const delim = this.#delimiter("y")
    this.#part(delim, false)
    this.#part(delim, false)
  }

  #delimiter(cmd: string): string {
    const delim = this.text[this.#i++]
    if (delim === undefined || !DELIMITERS.has(delim))
      this.#refuse(`a ${cmd} command whose delimiter is not one of ${[...DELIMITERS].join("")}`)
    return delim
  }

  /**
   * A regex or replacement up to `delim`. A backslash escapes the next character (GNU's
   * match_slash); a newline ends the command there, so one inside is refused. A bracket
   * expression is accepted only with plain content, where GNU 4.9 (which skips delimiters inside
   * brackets) and older readings (which do not) end it at the same `]`.
   */
  #part(delim: string, regex: boolean): void {
    const s = this.text
    while (this.#i < s.length) {
      const c = s[this.#i++]!
      if (c === delim) return
      if (c === "\n") break
      if (c === "\\") {
        const next = s[this.#i++]
        if (next === undefined || next === "\n") break
        continue
      }
      if (c === "[" && regex) this.#bracket(delim)
      else if (c === "[" || c === "]") this.#refuse("a bracket in a replacement or y text")
    }
    this.#refuse(`an unterminated ${regex ? "regex" : "replacement"}`)
  }

  #bracket(delim: string): void {
    const s = this.text
    if (s[this.#i] === "^") this.#i++
    const start = this.#i
    while (this.#i < s.length && s[this.#i] !== "]") {
      const c = s[this.#i]!
      if (c === delim || c === "[" || c === "\\" || c === "\n")
        this.#refuse(`${JSON.stringify(c)} inside a bracket expression, which sed versions read differently`)
      this.#i++
    }
    if (this.#i === start || this.#i >= s.length) this.#refuse("an empty or unclosed bracket expression")
    this.#i++
  }

  /** What may follow a command: blanks, then `;`, newline, `}`, a comment or the end. */
  #endOfCommand(cmd: string): void {
    this.#blanks()
    const next = this.#peek()
    if (next === undefined || next === ";" || next === "\n" || next === "}" || next === "#") return
    this.#refuse(`unexpected text after the ${cmd} command`)
  }

  #comment(): void {
    while (this.#i < this.text.length && this.text[this.#i] !== "\n") this.#i++
  }

  #digits(): boolean {
    const start = this.#i
    while (/[0-9]/.test(this.text[this.#i] ?? "")) this.#i++
    return this.#i > start
  }

  #blanks(): void {
    while (this.#peek() === " " || this.#peek() === "\t") this.#i++
  }

  #peek(): string | undefined {
    return this.text[this.#i]
  }

  #refuse(problem: string): never {
    throw new Refused(problem)
  }
}
