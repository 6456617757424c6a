import { allow, approve, deny, type Verdict } from "../verdict.ts"
import { AwkExpressions, TERMINATORS } from "./awk-expression.ts"
import { AwkRefused, tokenizeAwk } from "./awk-lexer.ts"

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

/** Programs, rules and statements; expressions are read by the class below it. */
class AwkParser extends AwkExpressions {
  program(): void {
    while (this.peek().kind !== "end") {
      if (this.accept(";") || this.accept("\n")) continue
      this.item()
      // A rule that ends with its action needs no separator before the next rule.
      if (this.tokens[this.i - 1]?.text === "}") continue
      if (!TERMINATORS.has(this.peek().text) && this.peek().kind !== "end")
        this.refuse(`unexpected ${this.describe()} after a rule`)
    }
  }

  protected item(): void {
    const head = this.peek().text
    if (head === "BEGIN" || head === "END") {
      this.next()
      this.action()
      return
    }
    if (head === "{") {
      this.action()
      return
    }
    this.expression()
    if (this.accept(",")) this.expression()
    // An action belongs to its pattern only on the same line (a newline makes two rules).
    if (this.peek().text === "{") this.action()
  }

  protected action(): void {
    this.expect("{")
    this.enter()
    while (!this.accept("}")) {
      if (this.accept(";") || this.accept("\n")) continue
      this.statement()
    }
    this.depth--
  }

  protected statement(): void {
    this.enter()
    const token = this.peek()
    if (token.kind === "name" && this.compound(token.text)) {
      this.depth--
      return
    }
    if (token.text === "{") this.action()
    else this.simple()
    this.depth--
  }

  /** Statements with a statement inside; true when one was read. */
  protected compound(word: string): boolean {
    if (word === "if") {
      this.next()
      this.condition()
      this.body()
      const save = this.i
      while (this.accept(";") || this.accept("\n")) {}
      if (this.accept("else")) this.body()
      else this.i = save
      return true
    }
    if (word === "while") {
      this.next()
      this.condition()
      this.body()
      return true
    }
    if (word !== "for") return false
    this.next()
    this.expect("(")
    const t = this.tokens
    if (t[this.i]?.kind === "name" && t[this.i + 1]?.text === "in" && t[this.i + 3]?.text === ")") {
      this.variable(this.next().text)
      this.next()
      this.variable(this.next().text)
      this.next()
    } else {
      if (this.peek().text !== ";") this.expression()
      this.expect(";")
      this.newlines()
      if (this.peek().text !== ";") this.expression()
      this.expect(";")
      this.newlines()
      if (this.peek().text !== ")") this.expression()
      this.expect(")")
    }
    this.body()
    return true
  }

  protected condition(): void {
    this.expect("(")
    this.expression()
    this.expect(")")
  }

  protected body(): void {
    this.newlines()
    if (this.accept(";")) return
    this.statement()
  }

  protected simple(): void {
    const word = this.peek().text
    if (word === "next" || word === "break" || word === "continue") this.next()
    else if (word === "exit") {
      this.next()
      if (!this.atTerminator()) this.expression()
    } else if (word === "delete") {
      this.next()
      this.variable(this.next().text)
      if (this.accept("[")) this.list("]")
    } else if (word === "print" || word === "printf") {
      this.printParens = this.parens
      this.print(word)
    } else this.expression()
    this.printParens = undefined
    // Whatever else follows (`>`, `>>`, `|`) would be a redirection or a pipe.
    if (!this.atTerminator()) this.refuse(`unexpected ${this.describe()} after a statement`)
  }

  protected print(word: string): void {
    this.next()
    if (this.atTerminator()) {
      if (word === "printf") this.refuse("printf without a format")
      return
    }
    if (this.peek().text === "(") {
      const save = [this.i, this.parens]
      this.next()
      this.list(")")
      if (this.atTerminator()) return
      ;[this.i, this.parens] = save as [number, number]
    }
    this.list(undefined)
  }
}
