import { allow, approve, deny, type Verdict } from "../verdict.ts"
import { AwkRefused, type AwkToken, tokenizeAwk } from "./awk-lexer.ts"
import { BUILTINS, KEYWORDS, RESERVED, SPECIALS } from "./awk-names.ts"

/**
 * Whether an awk program runs without approval. It does only when it parses completely in the
 * small awk subset below; anything else (system, getline, pipes, `>` redirection, close, fflush,
 * function definitions, gawk's @ and namespaces, unknown builtins or special variables) needs a
 * human, and ENVIRON is refused outright.
 *
 *   program   := { item | ';' | newline }
 *   item      := (BEGIN | END) action | pattern [',' pattern] [action] | action
 *   statement := action | if (e) s [else s] | while (e) s | for (name in name) s
 *              | for ([simple]; [e]; [simple]) s | next | exit [e] | break | continue
 *              | delete name ['[' list ']'] | print [list] | printf list | simple
 *   e         := ?:, ||, &&, in, ~ !~, comparisons, concatenation, + -, * / %, ! -, ^, ++ --, $,
 *                (e), names, arrays, numbers, strings, /regex/ and allowed builtin calls
 */
export function awkProgramVerdict(program: string): Verdict {
  if (/\bENVIRON\b/.test(program)) return deny("awk ENVIRON reads the process environment")
  if (program.length > MAX_LENGTH) return approve("awk program is too long to check")
  try {
    new AwkParser(tokenizeAwk(program)).program()
    return allow("awk program within the allowed subset")
  } catch (error) {
    if (error instanceof AwkRefused) return approve(`awk program has ${error.message}`)
    throw error
  }
}

const MAX_LENGTH = 20_000
const MAX_DEPTH = 100

const COMPARISONS = new Set(["<", "<=", "!=", "==", ">", ">="])
const ASSIGNMENTS = new Set(["=", "+=", "-=", "*=", "%=", "^="])
const TERMINATORS = new Set([";", "\n", "}", ""])

class AwkParser {
  #i = 0
  #depth = 0
  /** Open `(` so far; and how many were open when the current print statement began. */
  #parens = 0
  #printParens: number | undefined

  constructor(readonly tokens: AwkToken[]) {}

  program(): void {
    while (this.#peek().kind !== "end") {
      if (this.#accept(";") || this.#accept("\n")) continue
      this.#item()
      // A rule that ends with its action needs no separator before the next rule.
      if (this.tokens[this.#i - 1]?.text === "}") continue
      if (!TERMINATORS.has(this.#peek().text) && this.#peek().kind !== "end")
        this.#refuse(`unexpected ${this.#describe()} after a rule`)
    }
  }

  #item(): void {
    const head = this.#peek().text
    if (head === "BEGIN" || head === "END") {
      this.#next()
      this.#action()
      return
    }
    if (head === "{") {
      this.#action()
      return
    }
    this.#expression()
    if (this.#accept(",")) this.#expression()
    // An action belongs to its pattern only on the same line (a newline makes two rules).
    if (this.#peek().text === "{") this.#action()
  }

  #action(): void {
    this.#expect("{")
    this.#enter()
    while (!this.#accept("}")) {
      if (this.#accept(";") || this.#accept("\n")) continue
      this.#statement()
    }
    this.#depth--
  }

  #statement(): void {
    this.#enter()
    const token = this.#peek()
    if (token.kind === "name" && this.#compound(token.text)) {
      this.#depth--
      return
    }
    if (token.text === "{") this.#action()
    else this.#simple()
    this.#depth--
  }

  /** Statements with a statement inside; true when one was read. */
  #compound(word: string): boolean {
    if (word === "if") {
      this.#next()
      this.#condition()
      this.#body()
      const save = this.#i
      while (this.#accept(";") || this.#accept("\n")) {}
      if (this.#accept("else")) this.#body()
      else this.#i = save
      return true
    }
    if (word === "while") {
      this.#next()
      this.#condition()
      this.#body()
      return true
    }
    if (word !== "for") return false
    this.#next()
    this.#expect("(")
    const t = this.tokens
    if (t[this.#i]?.kind === "name" && t[this.#i + 1]?.text === "in" && t[this.#i + 3]?.text === ")") {
      this.#variable(this.#next().text)
      this.#next()
      this.#variable(this.#next().text)
      this.#next()
    } else {
      if (this.#peek().text !== ";") this.#expression()
      this.#expect(";")
      this.#newlines()
      if (this.#peek().text !== ";") this.#expression()
      this.#expect(";")
      this.#newlines()
      if (this.#peek().text !== ")") this.#expression()
      this.#expect(")")
    }
    this.#body()
    return true
  }

  #condition(): void {
    this.#expect("(")
    this.#expression()
    this.#expect(")")
  }

  #body(): void {
    this.#newlines()
    if (this.#accept(";")) return
    this.#statement()
  }

  #simple(): void {
    const word = this.#peek().text
    if (word === "next" || word === "break" || word === "continue") this.#next()
    else if (word === "exit") {
      this.#next()
      if (!this.#atTerminator()) this.#expression()
    } else if (word === "delete") {
      this.#next()
      this.#variable(this.#next().text)
      if (this.#accept("[")) this.#list("]")
    } else if (word === "print" || word === "printf") {
      this.#printParens = this.#parens
      this.#print(word)
    } else this.#expression()
    this.#printParens = undefined
    // Whatever else follows (`>`, `>>`, `|`) would be a redirection or a pipe.
    if (!this.#atTerminator()) this.#refuse(`unexpected ${this.#describe()} after a statement`)
  }

  #print(word: string): void {
    this.#next()
    if (this.#atTerminator()) {
      if (word === "printf") this.#refuse("printf without a format")
      return
    }
    if (this.#peek().text === "(") {
      const save = [this.#i, this.#parens]
      this.#next()
      this.#list(")")
      if (this.#atTerminator()) return
      ;[this.#i, this.#parens] = save as [number, number]
    }
    this.#list(undefined)
  }

  #list(close: string | undefined): void {
    this.#expression()
    while (this.#accept(",")) {
      this.#newlines()
      this.#expression()
    }
    if (close !== undefined) this.#expect(close)
  }

  #expression(): void {
    this.#enter()
    this.#ternary()
    this.#depth--
  }

  #ternary(): void {
    this.#binary(0)
    if (this.#accept("?")) {
      this.#ternary()
      this.#expect(":")
      this.#ternary()
    }
  }

  /** Levels of binary operators, loosest first; the last level is concatenation. */
  #binary(level: number): void {
    if (level === LEVELS.length) {
      this.#concatenation()
      return
    }
    this.#binary(level + 1)
    for (;;) {
      const token = this.#peek()
      const op = token.text
      const isOperator = token.kind === "op" || (token.kind === "name" && op === "in")
      if (!isOperator || !LEVELS[level]!.has(op)) return
      // gawk and mawk read `>` in a print statement outside parentheses as output redirection.
      if (op === ">" && this.#printParens === this.#parens) return
      this.#next()
      if (op === "&&" || op === "||") this.#newlines()
      if (op === "in") {
        this.#variable(this.#next().text)
        continue
      }
      this.#binary(level + 1)
      // Comparisons do not chain in awk's grammar.
      if (COMPARISONS.has(op) && COMPARISONS.has(this.#peek().text)) this.#refuse("chained comparisons")
    }
  }

  #concatenation(): void {
    this.#additive()
    while (this.#startsOperand()) this.#additive()
  }

  #additive(): void {
    this.#multiplicative()
    while (this.#peek().text === "+" || this.#peek().text === "-") {
      this.#next()
      this.#multiplicative()
    }
  }

  #multiplicative(): void {
    this.#unary()
    while (["*", "/", "%"].includes(this.#peek().text) && this.#peek().kind === "op") {
      this.#next()
      this.#unary()
    }
  }

  #unary(): void {
    const op = this.#peek().text
    if (this.#peek().kind === "op" && (op === "!" || op === "-" || op === "+")) {
      this.#next()
      this.#enter()
      this.#unary()
      this.#depth--
      return
    }
    this.#power()
  }

  #power(): void {
    this.#postfix()
    if (this.#accept("^")) this.#unary()
  }

  /** Operands, with assignment and increments on the lvalues (`x = 1`, `c[$1]++`, `$2 = ""`). */
  #postfix(): void {
    const token = this.#peek()
    if (token.text === "++" || token.text === "--") {
      this.#next()
      this.#lvalue()
      return
    }
    if (token.kind === "op" && token.text === "(") {
      this.#next()
      this.#expression()
      this.#expect(")")
      return
    }
    if (token.kind === "number" || token.kind === "string" || token.kind === "regex") {
      this.#next()
      return
    }
    if (token.kind === "name" && token.text in BUILTINS) {
      this.#call()
      return
    }
    if (token.kind !== "name" && token.text !== "$") this.#refuse(`unexpected ${this.#describe()}`)
    // `name(` is a call in every awk: to a user function (none here) or a builtin dupin does not know.
    if (token.call) this.#refuse(`a call to ${token.text}, which is not on the list of builtins`)
    this.#lvalue()
    const op = this.#peek().text
    if (op === "++" || op === "--") this.#next()
    else if (ASSIGNMENTS.has(op) && this.#peek().kind === "op") {
      this.#next()
      this.#expression()
    }
  }

  #lvalue(): void {
    if (this.#accept("$")) {
      const token = this.#peek()
      if (token.kind === "number") this.#next()
      else if (token.text === "(") this.#postfix()
      else if (token.text === "$" || token.kind === "name") {
        this.#enter()
        this.#lvalue()
        this.#depth--
      } else this.#refuse(`$ before ${this.#describe()}`)
      return
    }
    if (this.#peek().call)
      this.#refuse(`a call to ${this.#peek().text}, which is not on the list of builtins`)
    this.#variable(this.#next().text)
    if (this.#accept("[")) this.#list("]")
  }

  #call(): void {
    const name = this.#next().text
    const [min, max] = BUILTINS[name]!
    if (this.#peek().text !== "(") {
      if (name !== "length") this.#refuse(`${name} without arguments`)
      return
    }
    this.#next()
    let count = 0
    while (!this.#accept(")")) {
      if (count > 0) this.#expect(",")
      this.#newlines()
      if (name === "split" && count === 1) this.#variable(this.#next().text)
      else if ((name === "sub" || name === "gsub") && count === 2) this.#lvalue()
      else this.#expression()
      count++
    }
    if (count < min || count > max) this.#refuse(`${name} with ${count} arguments`)
  }

  /** A variable name: user names, or the special variables on the list. */
  #variable(name: string): void {
    if (
      !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ||
      KEYWORDS.has(name) ||
      RESERVED.has(name) ||
      name in BUILTINS
    )
      this.#refuse(`${JSON.stringify(name)} where a variable belongs`)
    if (!/[a-z]/.test(name) && !SPECIALS.has(name))
      this.#refuse(`the variable ${name}, which may be a special variable of some awk`)
  }

  #startsOperand(): boolean {
    const token = this.#peek()
    if (token.kind === "number" || token.kind === "string") return true
    if (token.kind === "name") return !KEYWORDS.has(token.text)
    return token.text === "$" || token.text === "(" || token.text === "++" || token.text === "--"
  }

  #atTerminator(): boolean {
    return TERMINATORS.has(this.#peek().text) && this.#peek().kind !== "string"
  }

  #newlines(): void {
    while (this.#accept("\n")) {}
  }

  #enter(): void {
    if (++this.#depth > MAX_DEPTH) this.#refuse("nesting deeper than dupin checks")
  }

  #peek(): AwkToken {
    return this.tokens[this.#i]!
  }

  #next(): AwkToken {
    const token = this.tokens[this.#i]!
    if (token.kind === "end") this.#refuse("an unexpected end")
    this.#count(token)
    this.#i++
    return token
  }

  #accept(text: string): boolean {
    const token = this.#peek()
    if (token.text !== text || token.kind === "string" || token.kind === "regex") return false
    this.#count(token)
    this.#i++
    return true
  }

  #count(token: AwkToken): void {
    if (token.kind !== "op") return
    if (token.text === "(") this.#parens++
    else if (token.text === ")") this.#parens--
  }

  #expect(text: string): void {
    if (!this.#accept(text)) this.#refuse(`${this.#describe()} where ${JSON.stringify(text)} belongs`)
  }

  #describe(): string {
    const token = this.#peek()
    return token.kind === "end" ? "the end" : JSON.stringify(token.text)
  }

  #refuse(why: string): never {
    throw new AwkRefused(why)
  }
}

const LEVELS = [new Set(["||"]), new Set(["&&"]), new Set(["in"]), new Set(["~", "!~"]), COMPARISONS]
