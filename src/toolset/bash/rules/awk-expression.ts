import { AwkRefused, type AwkToken } from "./awk-lexer.ts"
import { BUILTINS, KEYWORDS, RESERVED, SPECIALS } from "./awk-names.ts"

/**
 * The expressions of the awk subset awk-program.ts accepts (see its grammar), and the token cursor
 * under them. Anything outside the subset throws AwkRefused with what it met.
 */
const MAX_DEPTH = 100

const COMPARISONS = new Set(["<", "<=", "!=", "==", ">", ">="])
const ASSIGNMENTS = new Set(["=", "+=", "-=", "*=", "%=", "^="])
export const TERMINATORS = new Set([";", "\n", "}", ""])

export class AwkExpressions {
  protected i = 0
  protected depth = 0
  /** Open `(` so far; and how many were open when the current print statement began. */
  protected parens = 0
  protected printParens: number | undefined

  constructor(readonly tokens: AwkToken[]) {}

  protected list(close: string | undefined): void {
    this.expression()
    while (this.accept(",")) {
      this.newlines()
      this.expression()
    }
    if (close !== undefined) this.expect(close)
  }

  protected expression(): void {
    this.enter()
    this.ternary()
    this.depth--
  }

  protected ternary(): void {
    this.binary(0)
    if (this.accept("?")) {
      this.ternary()
      this.expect(":")
      this.ternary()
    }
  }

  /** Levels of binary operators, loosest first; the last level is concatenation. */
  protected binary(level: number): void {
    if (level === LEVELS.length) {
      this.concatenation()
      return
    }
    this.binary(level + 1)
    for (;;) {
      const token = this.peek()
      const op = token.text
      const isOperator = token.kind === "op" || (token.kind === "name" && op === "in")
      if (!isOperator || !LEVELS[level]!.has(op)) return
      // gawk and mawk read `>` in a print statement outside parentheses as output redirection.
      if (op === ">" && this.printParens === this.parens) return
      this.next()
      if (op === "&&" || op === "||") this.newlines()
      if (op === "in") {
        this.variable(this.next().text)
        continue
      }
      this.binary(level + 1)
      // Comparisons do not chain in awk's grammar.
      if (COMPARISONS.has(op) && COMPARISONS.has(this.peek().text)) this.refuse("chained comparisons")
    }
  }

  protected concatenation(): void {
    this.additive()
    while (this.startsOperand()) this.additive()
  }

  protected additive(): void {
    this.multiplicative()
    while (this.peek().text === "+" || this.peek().text === "-") {
      this.next()
      this.multiplicative()
    }
  }

  protected multiplicative(): void {
    this.unary()
    while (["*", "/", "%"].includes(this.peek().text) && this.peek().kind === "op") {
      this.next()
      this.unary()
    }
  }

  protected unary(): void {
    const op = this.peek().text
    if (this.peek().kind === "op" && (op === "!" || op === "-" || op === "+")) {
      this.next()
      this.enter()
      this.unary()
      this.depth--
      return
    }
    this.power()
  }

  protected power(): void {
    this.postfix()
    if (this.accept("^")) this.unary()
  }

  /** Operands, with assignment and increments on the lvalues (`x = 1`, `c[$1]++`, `$2 = ""`). */
  protected postfix(): void {
    const token = this.peek()
    if (token.text === "++" || token.text === "--") {
      this.next()
      this.lvalue()
      return
    }
    if (token.kind === "op" && token.text === "(") {
      this.next()
      this.expression()
      this.expect(")")
      return
    }
    if (token.kind === "number" || token.kind === "string" || token.kind === "regex") {
      this.next()
      return
    }
    if (token.kind === "name" && token.text in BUILTINS) {
      this.call()
      return
    }
    if (token.kind !== "name" && token.text !== "$") this.refuse(`unexpected ${this.describe()}`)
    // `name(` is a call in every awk: to a user function (none here) or a builtin dupin does not know.
    if (token.call) this.refuse(`a call to ${token.text}, which is not on the list of builtins`)
    this.lvalue()
    const op = this.peek().text
    if (op === "++" || op === "--") this.next()
    else if (ASSIGNMENTS.has(op) && this.peek().kind === "op") {
      this.next()
      this.expression()
    }
  }

  protected lvalue(): void {
    if (this.accept("$")) {
      const token = this.peek()
      if (token.kind === "number") this.next()
      else if (token.text === "(") this.postfix()
      else if (token.text === "$" || token.kind === "name") {
        this.enter()
        this.lvalue()
        this.depth--
      } else this.refuse(`$ before ${this.describe()}`)
      return
    }
    if (this.peek().call) this.refuse(`a call to ${this.peek().text}, which is not on the list of builtins`)
    this.variable(this.next().text)
    if (this.accept("[")) this.list("]")
  }

  protected call(): void {
    const name = this.next().text
    const [min, max] = BUILTINS[name]!
    if (this.peek().text !== "(") {
      if (name !== "length") this.refuse(`${name} without arguments`)
      return
    }
    this.next()
    let count = 0
    while (!this.accept(")")) {
      if (count > 0) this.expect(",")
      this.newlines()
      if (name === "split" && count === 1) this.variable(this.next().text)
      else if ((name === "sub" || name === "gsub") && count === 2) this.lvalue()
      else this.expression()
      count++
    }
    if (count < min || count > max) this.refuse(`${name} with ${count} arguments`)
  }

  /** A variable name: user names, or the special variables on the list. */
  protected variable(name: string): void {
    if (
      !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ||
      KEYWORDS.has(name) ||
      RESERVED.has(name) ||
      name in BUILTINS
    )
      this.refuse(`${JSON.stringify(name)} where a variable belongs`)
    if (!/[a-z]/.test(name) && !SPECIALS.has(name))
      this.refuse(`the variable ${name}, which may be a special variable of some awk`)
  }

  protected startsOperand(): boolean {
    const token = this.peek()
    if (token.kind === "number" || token.kind === "string") return true
    if (token.kind === "name") return !KEYWORDS.has(token.text)
    return token.text === "$" || token.text === "(" || token.text === "++" || token.text === "--"
  }

  protected atTerminator(): boolean {
    return TERMINATORS.has(this.peek().text) && this.peek().kind !== "string"
  }

  protected newlines(): void {
    while (this.accept("\n")) {}
  }

  protected enter(): void {
    if (++this.depth > MAX_DEPTH) this.refuse("nesting deeper than dupin checks")
  }

  protected peek(): AwkToken {
    return this.tokens[this.i]!
  }

  protected next(): AwkToken {
    const token = this.tokens[this.i]!
    if (token.kind === "end") this.refuse("an unexpected end")
    this.count(token)
    this.i++
    return token
  }

  protected accept(text: string): boolean {
    const token = this.peek()
    if (token.text !== text || token.kind === "string" || token.kind === "regex") return false
    this.count(token)
    this.i++
    return true
  }

  protected count(token: AwkToken): void {
    if (token.kind !== "op") return
    if (token.text === "(") this.parens++
    else if (token.text === ")") this.parens--
  }

  protected expect(text: string): void {
    if (!this.accept(text)) this.refuse(`${this.describe()} where ${JSON.stringify(text)} belongs`)
  }

  protected describe(): string {
    const token = this.peek()
    return token.kind === "end" ? "the end" : JSON.stringify(token.text)
  }

  protected refuse(why: string): never {
    throw new AwkRefused(why)
  }
}

const LEVELS = [new Set(["||"]), new Set(["&&"]), new Set(["in"]), new Set(["~", "!~"]), COMPARISONS]
