import { allow, approve, deny, type Verdict } from "../verdict.ts"
import { readsEnvironment } from "./jq-environment.ts"
import { JQ_BUILTINS, JQ_FORMATS, JQ_KEYWORDS } from "./jq-names.ts"

/**
 * Whether a jq filter runs without approval. It does only when it parses completely in the small
 * jq subset below; anything else (import/include with a search path, input/inputs,
 * input_filename, $__loc__, def, label, comments, builtins not on the list) needs a human, and
 * the process environment (`$ENV`, `env`) is refused outright.
 *
 *   pipe    := term 'as' '$'name '|' pipe | comma ['|' pipe]
 *   comma   := alt {',' alt};  alt := update ['//' alt];  update := or [('=' | '|=' | '+=' ...) or]
 *   or/and/compare/+ -/* / %/unary '-' as in jq, over
 *   term    := primary {'.'name | '."str"' | '[' [pipe [':' [pipe]]] ']' | '?'}
 *   primary := '.' | '..' | '.'name | number | string | '@'format [string] | '$'name | '(' pipe ')'
 *            | '[' [pipe] ']' | '{' entries '}' | builtin ['(' pipe {';' pipe} ')']
 *            | if pipe then pipe {elif pipe then pipe} else pipe end
 *            | (reduce | foreach) term as '$'name '(' pipe ';' pipe [';' pipe] ')'
 *   string  := '"' { char | escape | '\(' pipe ')' } '"'
 */
export function jqFilterVerdict(filter: string): Verdict {
  // Before parsing, so a filter that fails to parse (and so goes to a human) still cannot be
  // approved into reading the environment.
  if (readsEnvironment(filter)) return deny("jq $ENV/env reads the process environment")
  if (filter.length > MAX_LENGTH) return approve("jq filter is too long to check")
  try {
    new JqParser(filter).filter()
    return allow("jq filter within the allowed subset")
  } catch (error) {
    if (error instanceof JqRefused) return error.verdict
    throw error
  }
}

const MAX_LENGTH = 20_000
const MAX_DEPTH = 100

class JqRefused extends Error {
  constructor(readonly verdict: Verdict) {
    super(verdict.reason)
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/
const NUMBER = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/
const COMPARISONS = ["==", "!=", "<=", ">=", "<", ">"]
const UPDATES = ["|=", "+=", "-=", "*=", "/=", "%=", "//=", "="]
const ESCAPES = new Set([...'"\\/bfnrt'])

class JqParser {
  #i = 0
  #depth = 0
  /** The leftmost term of the expression being read was already read (by the `as` lookahead). */
  #termRead = false

  constructor(readonly text: string) {}

  filter(): void {
    this.#pipe()
    this.#space()
    if (this.#i < this.text.length) this.#refuse(`unexpected ${this.#describe()}`)
  }

  #pipe(): void {
    this.#enter()
    this.#space()
    if (this.#word() === "def") this.#refuse("a function definition")
    if (this.text[this.#i] === "-") this.#comma()
    else {
      // Read the first term once: `term as $x | body` binds, anything else continues from it.
      this.#term()
      if (this.#keyword("as")) {
        this.#binding()
        this.#expect("|")
        this.#pipe()
        this.#depth--
        return
      }
      this.#termRead = true
      this.#comma()
    }
    if (this.#accept("|")) this.#pipe()
    this.#depth--
  }

  #comma(): void {
    this.#alternative()
    while (this.#accept(",")) this.#alternative()
  }

  #alternative(): void {
    this.#update()
    if (this.#accept("//")) this.#alternative()
  }

  #update(): void {
    this.#or()
    if (this.#acceptAny(UPDATES)) this.#or()
  }

  #or(): void {
    this.#and()
    while (this.#keyword("or")) this.#and()
  }

  #and(): void {
    this.#compare()
    while (this.#keyword("and")) this.#compare()
  }

  #compare(): void {
    this.#additive()
    if (!this.#acceptAny(COMPARISONS)) return
    this.#additive()
    if (this.#acceptAny(COMPARISONS)) this.#refuse("chained comparisons")
  }

  #additive(): void {
    this.#multiplicative()
    while (this.#acceptAny(["+", "-"])) this.#multiplicative()
  }

  #multiplicative(): void {
    this.#unary()
    while (this.#acceptAny(["*", "/", "%"])) this.#unary()
  }

  #unary(): void {
    if (this.#termRead) {
      this.#termRead = false
      return
    }
    if (!this.#acceptAny(["-"])) {
      this.#term()
      return
    }
    this.#enter()
    this.#unary()
    this.#depth--
  }

  #term(): void {
    this.#enter()
    this.#primary()
    for (;;) {
      this.#space()
      const c = this.text[this.#i]
      if (c === "?" && !this.text.startsWith("?//", this.#i)) this.#i++
      else if (c === "[") this.#index()
      else if (c === "." && this.text[this.#i + 1] !== ".") {
        this.#i++
        if (this.text[this.#i] === "[") this.#index()
        else if (this.text[this.#i] === '"') this.#string()
        else if (!this.#name()) this.#refuse("a . with no field name after a term")
      } else break
    }
    this.#depth--
  }

  #index(): void {
    this.#i++
    if (this.#accept("]")) return
    if (!this.#accept(":")) {
      this.#pipe()
      if (this.#accept("]")) return
      this.#expect(":")
    }
    if (!this.#accept("]")) {
      this.#pipe()
      this.#expect("]")
    }
  }

  #primary(): void {
    this.#space()
    const s = this.text
    const c = s[this.#i]
    if (c === undefined) this.#refuse("an unexpected end")
    if (c === ".") {
      this.#i++
      if (s[this.#i] === ".") this.#i++
      else if (s[this.#i] === '"') this.#string()
      else if (s[this.#i] === "[") this.#index()
      else this.#name()
      return
    }
    const number = NUMBER.exec(s.slice(this.#i))
    if (number) {
      this.#i += number[0].length
      if (/[A-Za-z_]/.test(s[this.#i] ?? "")) this.#refuse("a number run into letters")
      return
    }
    if (c === '"') this.#string()
    else if (c === "$") this.#variable()
    else if (c === "@") this.#format()
    else if (c === "{") this.#object()
    else if (c === "(" || c === "[") {
      const close = c === "(" ? ")" : "]"
      this.#i++
      if (c === "[" && this.#accept("]")) return
      this.#pipe()
      this.#expect(close)
    } else this.#named()
  }

  #named(): void {
    const word = this.#word()
    if (word === undefined) this.#refuse(`unexpected ${this.#describe()}`)
    this.#i += word.length
    if (word === "if") this.#conditional()
    else if (word === "reduce" || word === "foreach") this.#fold(word)
    else if (word !== "true" && word !== "false" && word !== "null") this.#call(word)
  }

  #call(name: string): void {
    if (this.text.startsWith("::", this.#i)) this.#refuse("a module reference")
    if (JQ_KEYWORDS.has(name)) this.#refuse(`the keyword ${name}, which is outside the allowed subset`)
    let arity = 0
    if (this.#accept("(")) {
      do {
        this.#pipe()
        arity++
      } while (this.#accept(";"))
      this.#expect(")")
    }
    if (name === "env") throw new JqRefused(deny("jq env reads the process environment"))
    if (!JQ_BUILTINS.has(`${name}/${arity}`))
      this.#refuse(`${name}/${arity}, which is not on the list of pure builtins`)
  }

  #conditional(): void {
    this.#pipe()
    this.#expectWord("then")
    this.#pipe()
    while (this.#keyword("elif")) {
      this.#pipe()
      this.#expectWord("then")
      this.#pipe()
    }
    this.#expectWord("else")
    this.#pipe()
    this.#expectWord("end")
  }

  #fold(word: string): void {
    this.#term()
    this.#expectWord("as")
    this.#binding()
    this.#expect("(")
    this.#pipe()
    this.#expect(";")
    this.#pipe()
    if (word === "foreach" && this.#accept(";")) this.#pipe()
    this.#expect(")")
  }

  /** Only `$name`: destructuring and `?//` alternatives are outside the subset. */
  #binding(): void {
    this.#space()
    if (this.text[this.#i] !== "$") this.#refuse("a destructuring pattern")
    this.#variable()
  }

  /** `$name` written together: jq also reads `$ name`, but no filter needs that. */
  #variable(): void {
    this.#i++
    const name = IDENT.exec(this.text.slice(this.#i))?.[0]
    if (name === undefined) this.#refuse("a $ without a variable name")
    this.#i += name.length
    if (name === "ENV") throw new JqRefused(deny("jq $ENV reads the process environment"))
    if (name.startsWith("__")) this.#refuse(`$${name}, which is outside the allowed subset`)
  }

  #format(): void {
    this.#i++
    const name = IDENT.exec(this.text.slice(this.#i))?.[0] ?? ""
    if (!JQ_FORMATS.has(name)) this.#refuse(`the format @${name}, which is not on the list`)
    this.#i += name.length
    this.#space()
    if (this.text[this.#i] === '"') this.#string()
  }

  #object(): void {
    this.#i++
    if (this.#accept("}")) return
    do {
      this.#space()
      const c = this.text[this.#i]
      if (c === "$") this.#variable()
      else if (c === '"') this.#string()
      else if (c === "(") {
        this.#i++
        this.#pipe()
        this.#expect(")")
        this.#expect(":")
        this.#objectValue()
        continue
      } else if (!this.#name()) this.#refuse(`unexpected ${this.#describe()} as an object key`)
      if (this.#accept(":")) this.#objectValue()
    } while (this.#accept(","))
    this.#expect("}")
  }

  /** jq's ExpD: terms joined by `|`, or a negation; anything wider is a jq syntax error anyway. */
  #objectValue(): void {
    this.#enter()
    if (this.#acceptAny(["-"])) this.#objectValue()
    else {
      this.#term()
      if (this.#accept("|")) this.#objectValue()
    }
    this.#depth--
  }

  #string(): void {
    const s = this.text
    this.#i++
    while (this.#i < s.length) {
      const c = s[this.#i++]!
      if (c === '"') return
      if (c < " ") this.#refuse("a control character in a string")
      if (c !== "\\") continue
      const e = s[this.#i++]
      if (e === "(") {
        this.#pipe()
        this.#expect(")")
      } else if (e === "u") {
        if (!/^[0-9A-Fa-f]{4}/.test(s.slice(this.#i))) this.#refuse("a malformed \\u escape")
        this.#i += 4
      } else if (e === undefined || !ESCAPES.has(e)) this.#refuse("an unknown escape in a string")
    }
    this.#refuse("an unterminated string")
  }

  /** A field or key name after `.` or in an object; keywords are names there. */
  #name(): boolean {
    const name = IDENT.exec(this.text.slice(this.#i))?.[0]
    if (name === undefined) return false
    this.#i += name.length
    return true
  }

  #word(): string | undefined {
    return IDENT.exec(this.text.slice(this.#i))?.[0]
  }

  #keyword(word: string): boolean {
    this.#space()
    if (this.#word() !== word) return false
    this.#i += word.length
    return true
  }

  #expectWord(word: string): void {
    if (!this.#keyword(word)) this.#refuse(`${this.#describe()} where ${word} belongs`)
  }

  /** Comments are refused: jq 1.7 continues a comment past a backslash-newline, 1.6 does not. */
  #space(): void {
    const s = this.text
    while (this.#i < s.length && " \t\r\n".includes(s[this.#i]!)) this.#i++
    if (s[this.#i] === "#") this.#refuse("a comment")
  }

  #accept(token: string): boolean {
    this.#space()
    if (!this.text.startsWith(token, this.#i)) return false
    // `|` is not `|=`, `/` is not `//`, `=` is not `==`, `?` is not `?//`.
    const after = this.text[this.#i + token.length]
    if (token === "|" && after === "=") return false
    if (token === "/" && (after === "/" || after === "=")) return false
    if (token === "//" && after === "=") return false
    this.#i += token.length
    return true
  }

  #acceptAny(tokens: string[]): boolean {
    this.#space()
    for (const token of tokens) {
      if (!this.text.startsWith(token, this.#i)) continue
      const after = this.text[this.#i + token.length]
      if ((token === "=" || token === "<" || token === ">" || token === "!") && after === "=") continue
      if ((token === "+" || token === "-" || token === "*" || token === "%") && after === "=") continue
      if (token === "/" && (after === "/" || after === "=")) continue
      this.#i += token.length
      return true
    }
    return false
  }

  #expect(token: string): void {
    if (!this.#accept(token)) this.#refuse(`${this.#describe()} where ${JSON.stringify(token)} belongs`)
  }

  #enter(): void {
    if (++this.#depth > MAX_DEPTH) this.#refuse("nesting deeper than dupin checks")
  }

  #describe(): string {
    const rest = this.text.slice(this.#i, this.#i + 12)
    return rest ? JSON.stringify(rest) : "the end"
  }

  #refuse(why: string): never {
    throw new JqRefused(approve(`jq filter has ${why}`))
  }
}
