import { allow, approve, deny, type Verdict } from "../verdict.ts"
import { JqRefused } from "./jq-cursor.ts"
import { readsEnvironment } from "./jq-environment.ts"
import { JqTerms } from "./jq-terms.ts"

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
const COMPARISONS = ["==", "!=", "<=", ">=", "<", ">"]
const UPDATES = ["|=", "+=", "-=", "*=", "/=", "%=", "//=", "="]

/** Pipes, bindings and operators, loosest first; terms are read by the class below it. */
class JqParser extends JqTerms {
  /** The leftmost term of the expression being read was already read (by the `as` lookahead). */
  protected termRead = false

  filter(): void {
    this.pipe()
    this.space()
    if (this.i < this.text.length) this.refuse(`unexpected ${this.describe()}`)
  }

  protected pipe(): void {
    this.enter()
    this.space()
    if (this.word() === "def") this.refuse("a function definition")
    if (this.text[this.i] === "-") this.comma()
    else {
      // Read the first term once: `term as $x | body` binds, anything else continues from it.
      this.term()
      if (this.keyword("as")) {
        this.binding()
        this.expect("|")
        this.pipe()
        this.depth--
        return
      }
      this.termRead = true
      this.comma()
    }
    if (this.accept("|")) this.pipe()
    this.depth--
  }

  protected comma(): void {
    this.alternative()
    while (this.accept(",")) this.alternative()
  }

  protected alternative(): void {
    this.update()
    if (this.accept("//")) this.alternative()
  }

  protected update(): void {
    this.or()
    if (this.acceptAny(UPDATES)) this.or()
  }

  protected or(): void {
    this.and()
    while (this.keyword("or")) this.and()
  }

  protected and(): void {
    this.compare()
    while (this.keyword("and")) this.compare()
  }

  protected compare(): void {
    this.additive()
    if (!this.acceptAny(COMPARISONS)) return
    this.additive()
    if (this.acceptAny(COMPARISONS)) this.refuse("chained comparisons")
  }

  protected additive(): void {
    this.multiplicative()
    while (this.acceptAny(["+", "-"])) this.multiplicative()
  }

  protected multiplicative(): void {
    this.unary()
    while (this.acceptAny(["*", "/", "%"])) this.unary()
  }

  protected unary(): void {
    if (this.termRead) {
      this.termRead = false
      return
    }
    if (!this.acceptAny(["-"])) {
      this.term()
      return
    }
    this.enter()
    this.unary()
    this.depth--
  }
}
