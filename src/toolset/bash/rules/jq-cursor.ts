import { approve, type Verdict } from "../verdict.ts"

/** The filter text under the jq parser: whitespace, tokens, words, nesting, refusal. */
export class JqRefused extends Error {
  constructor(readonly verdict: Verdict) {
    super(verdict.reason)
  }
}

const MAX_DEPTH = 100
export const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/

export abstract class JqCursor {
  protected i = 0
  protected depth = 0

  constructor(readonly text: string) {}

  protected name(): boolean {
    const name = IDENT.exec(this.text.slice(this.i))?.[0]
    if (name === undefined) return false
    this.i += name.length
    return true
  }

  protected word(): string | undefined {
    return IDENT.exec(this.text.slice(this.i))?.[0]
  }

  protected keyword(word: string): boolean {
    this.space()
    if (this.word() !== word) return false
    this.i += word.length
    return true
  }

  protected expectWord(word: string): void {
    if (!this.keyword(word)) this.refuse(`${this.describe()} where ${word} belongs`)
  }

  /** Comments are refused: jq 1.7 continues a comment past a backslash-newline, 1.6 does not. */
  protected space(): void {
    const s = this.text
    while (this.i < s.length && " \t\r\n".includes(s[this.i]!)) this.i++
    if (s[this.i] === "#") this.refuse("a comment")
  }

  protected accept(token: string): boolean {
    this.space()
    if (!this.text.startsWith(token, this.i)) return false
    // `|` is not `|=`, `/` is not `//`, `=` is not `==`, `?` is not `?//`.
    const after = this.text[this.i + token.length]
    if (token === "|" && after === "=") return false
    if (token === "/" && (after === "/" || after === "=")) return false
    if (token === "//" && after === "=") return false
    this.i += token.length
    return true
  }

  protected acceptAny(tokens: string[]): boolean {
    this.space()
    for (const token of tokens) {
      if (!this.text.startsWith(token, this.i)) continue
      const after = this.text[this.i + token.length]
      if ((token === "=" || token === "<" || token === ">" || token === "!") && after === "=") continue
      if ((token === "+" || token === "-" || token === "*" || token === "%") && after === "=") continue
      if (token === "/" && (after === "/" || after === "=")) continue
      this.i += token.length
      return true
    }
    return false
  }

  protected expect(token: string): void {
    if (!this.accept(token)) this.refuse(`${this.describe()} where ${JSON.stringify(token)} belongs`)
  }

  protected enter(): void {
    if (++this.depth > MAX_DEPTH) this.refuse("nesting deeper than dupin checks")
  }

  protected describe(): string {
    const rest = this.text.slice(this.i, this.i + 12)
    return rest ? JSON.stringify(rest) : "the end"
  }

  protected refuse(why: string): never {
    throw new JqRefused(approve(`jq filter has ${why}`))
  }
}
