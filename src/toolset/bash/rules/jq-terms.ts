import { deny } from "../verdict.ts"
import { IDENT, JqCursor, JqRefused } from "./jq-cursor.ts"
import { JQ_BUILTINS, JQ_FORMATS, JQ_KEYWORDS } from "./jq-names.ts"

/** The terms of the jq subset jq-filter.ts accepts (see its grammar): paths, literals, calls, objects. */
const NUMBER = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/
const ESCAPES = new Set([...'"\\/bfnrt'])

export abstract class JqTerms extends JqCursor {
  /** A whole filter, where a term holds one (`(…)`, `[…]`, arguments). */
  protected abstract pipe(): void

  protected term(): void {
    this.enter()
    this.primary()
    for (;;) {
      this.space()
      const c = this.text[this.i]
      if (c === "?" && !this.text.startsWith("?//", this.i)) this.i++
      else if (c === "[") this.index()
      else if (c === "." && this.text[this.i + 1] !== ".") {
        this.i++
        if (this.text[this.i] === "[") this.index()
        else if (this.text[this.i] === '"') this.string()
        else if (!this.name()) this.refuse("a . with no field name after a term")
      } else break
    }
    this.depth--
  }

  protected index(): void {
    this.i++
    if (this.accept("]")) return
    if (!this.accept(":")) {
      this.pipe()
      if (this.accept("]")) return
      this.expect(":")
    }
    if (!this.accept("]")) {
      this.pipe()
      this.expect("]")
    }
  }

  protected primary(): void {
    this.space()
    const s = this.text
    const c = s[this.i]
    if (c === undefined) this.refuse("an unexpected end")
    if (c === ".") {
      this.i++
      if (s[this.i] === ".") this.i++
      else if (s[this.i] === '"') this.string()
      else if (s[this.i] === "[") this.index()
      else this.name()
      return
    }
    const number = NUMBER.exec(s.slice(this.i))
    if (number) {
      this.i += number[0].length
      if (/[A-Za-z_]/.test(s[this.i] ?? "")) this.refuse("a number run into letters")
      return
    }
    if (c === '"') this.string()
    else if (c === "$") this.variable()
    else if (c === "@") this.format()
    else if (c === "{") this.object()
    else if (c === "(" || c === "[") {
      const close = c === "(" ? ")" : "]"
      this.i++
      if (c === "[" && this.accept("]")) return
      this.pipe()
      this.expect(close)
    } else this.named()
  }

  protected named(): void {
    const word = this.word()
    if (word === undefined) this.refuse(`unexpected ${this.describe()}`)
    this.i += word.length
    if (word === "if") this.conditional()
    else if (word === "reduce" || word === "foreach") this.fold(word)
    else if (word !== "true" && word !== "false" && word !== "null") this.call(word)
  }

  protected call(name: string): void {
    if (this.text.startsWith("::", this.i)) this.refuse("a module reference")
    if (JQ_KEYWORDS.has(name)) this.refuse(`the keyword ${name}, which is outside the allowed subset`)
    let arity = 0
    if (this.accept("(")) {
      do {
        this.pipe()
        arity++
      } while (this.accept(";"))
      this.expect(")")
    }
    if (name === "env") throw new JqRefused(deny("jq env reads the process environment"))
    if (!JQ_BUILTINS.has(`${name}/${arity}`))
      this.refuse(`${name}/${arity}, which is not on the list of pure builtins`)
  }

  protected conditional(): void {
    this.pipe()
    this.expectWord("then")
    this.pipe()
    while (this.keyword("elif")) {
      this.pipe()
      this.expectWord("then")
      this.pipe()
    }
    this.expectWord("else")
    this.pipe()
    this.expectWord("end")
  }

  protected fold(word: string): void {
    this.term()
    this.expectWord("as")
    this.binding()
    this.expect("(")
    this.pipe()
    this.expect(";")
    this.pipe()
    if (word === "foreach" && this.accept(";")) this.pipe()
    this.expect(")")
  }

  /** Only `$name`: destructuring and `?//` alternatives are outside the subset. */
  protected binding(): void {
    this.space()
    if (this.text[this.i] !== "$") this.refuse("a destructuring pattern")
    this.variable()
  }

  /** `$name` written together: jq also reads `$ name`, but no filter needs that. */
  protected variable(): void {
    this.i++
    const name = IDENT.exec(this.text.slice(this.i))?.[0]
    if (name === undefined) this.refuse("a $ without a variable name")
    this.i += name.length
    if (name === "ENV") throw new JqRefused(deny("jq $ENV reads the process environment"))
    if (name.startsWith("__")) this.refuse(`$${name}, which is outside the allowed subset`)
  }

  protected format(): void {
    this.i++
    const name = IDENT.exec(this.text.slice(this.i))?.[0] ?? ""
    if (!JQ_FORMATS.has(name)) this.refuse(`the format @${name}, which is not on the list`)
    this.i += name.length
    this.space()
    if (this.text[this.i] === '"') this.string()
  }

  protected object(): void {
    this.i++
    if (this.accept("}")) return
    do {
      this.space()
      const c = this.text[this.i]
      if (c === "$") this.variable()
      else if (c === '"') this.string()
      else if (c === "(") {
        this.i++
        this.pipe()
        this.expect(")")
        this.expect(":")
        this.objectValue()
        continue
      } else if (!this.name()) this.refuse(`unexpected ${this.describe()} as an object key`)
      if (this.accept(":")) this.objectValue()
    } while (this.accept(","))
    this.expect("}")
  }

  /** jq's ExpD: terms joined by `|`, or a negation; anything wider is a jq syntax error anyway. */
  protected objectValue(): void {
    this.enter()
    if (this.acceptAny(["-"])) this.objectValue()
    else {
      this.term()
      if (this.accept("|")) this.objectValue()
    }
    this.depth--
  }

  protected string(): void {
    const s = this.text
    this.i++
    while (this.i < s.length) {
      const c = s[this.i++]!
      if (c === '"') return
      if (c < " ") this.refuse("a control character in a string")
      if (c !== "\\") continue
      const e = s[this.i++]
      if (e === "(") {
        this.pipe()
        this.expect(")")
      } else if (e === "u") {
        if (!/^[0-9A-Fa-f]{4}/.test(s.slice(this.i))) this.refuse("a malformed \\u escape")
        this.i += 4
      } else if (e === undefined || !ESCAPES.has(e)) this.refuse("an unknown escape in a string")
    }
    this.refuse("an unterminated string")
  }

  /** A field or key name after `.` or in an object; keywords are names there. */
}
