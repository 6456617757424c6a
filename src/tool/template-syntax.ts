/**
 * The Jinja subset of HolmesGPT command templates: text, `{{ name | default(x) }}`,
 * `{% if %}/{% elif %}/{% else %}/{% endif %}` with simple conditions, `{# #}` comments and
 * whitespace control. Parsed once at load; anything else is a TemplateError.
 */
import { TemplateError } from "./template-error.ts"

export type Literal = string | number | boolean | null
export type Expr =
  | { t: "var"; name: string }
  | { t: "lit"; value: Literal }
  | { t: "not"; e: Expr }
  | { t: "and" | "or"; a: Expr; b: Expr }
  | { t: "cmp"; op: "==" | "!="; a: Expr; b: Expr }
  | { t: "is"; e: Expr; test: "defined" | "none"; negate: boolean }
export type Node =
  | { t: "text"; text: string }
  | { t: "out"; name: string; fallback: Literal | undefined }
  | { t: "if"; branches: Array<{ cond: Expr; body: Node[] }>; otherwise: Node[] }

/** The template's nodes. Throws TemplateError on syntax it does not support. */
export function parseTemplate(source: string): Node[] {
  return parseNodes(tokenize(source))
}

type Token = { kind: "text"; text: string } | { kind: "out" | "tag"; body: string }

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  const re = /\{\{(-?)([\s\S]*?)(-?)\}\}|\{%(-?)([\s\S]*?)(-?)%\}|\{#(-?)[\s\S]*?(-?)#\}/g
  let last = 0
  let trimNext = false
  for (const m of source.matchAll(re)) {
    let text = source.slice(last, m.index)
    if (trimNext) text = text.replace(/^\s+/, "")
    if (m[1] === "-" || m[4] === "-" || m[7] === "-") text = text.replace(/\s+$/, "")
    if (text) tokens.push({ kind: "text", text })
    if (m[0].startsWith("{{")) tokens.push({ kind: "out", body: m[2]!.trim() })
    else if (m[0].startsWith("{%")) tokens.push({ kind: "tag", body: m[5]!.trim() })
    trimNext = m[3] === "-" || m[6] === "-" || m[8] === "-"
    last = m.index + m[0].length
  }
  let rest = source.slice(last)
  if (trimNext) rest = rest.replace(/^\s+/, "")
  if (/\{\{|\{%/.test(rest)) throw new TemplateError("unclosed {{ or {% in the template")
  if (rest) tokens.push({ kind: "text", text: rest })
  return tokens
}

function parseNodes(tokens: Token[]): Node[] {
  let pos = 0
  const block = (enders: string[]): { nodes: Node[]; ender: string } => {
    const nodes: Node[] = []
    while (pos < tokens.length) {
      const token = tokens[pos++]!
      if (token.kind === "text") nodes.push({ t: "text", text: token.text })
      else if (token.kind === "out") nodes.push(parseOutput(token.body))
      else {
        const word = token.body.split(/\s+/, 1)[0]!
        if (enders.includes(word)) {
          pos--
          return { nodes, ender: word }
        }
        if (word !== "if") throw new TemplateError(`unsupported tag {% ${token.body} %}`)
        nodes.push(parseIf(token.body))
      }
    }
    if (enders.length > 0) throw new TemplateError(`missing {% ${enders.at(-1)} %}`)
    return { nodes, ender: "" }
  }
  const parseIf = (head: string): Node => {
    const branches = [{ cond: parseExpr(head.slice(2)), body: [] as Node[] }]
    for (;;) {
      const { nodes, ender } = block(["elif", "else", "endif"])
      const tag = (tokens[pos++] as { body: string }).body
      branches.at(-1)!.body = nodes
      if (ender === "endif") return { t: "if", branches, otherwise: [] }
      if (ender === "elif") {
        branches.push({ cond: parseExpr(tag.slice(4)), body: [] })
        continue
      }
      const otherwise = block(["endif"]).nodes
      pos++
      return { t: "if", branches, otherwise }
    }
  }
  return block([]).nodes
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/
/** HolmesGPT's `{{ config.key }}`: a value of the toolset's `config:`, not a parameter. */
export const CONFIG_REF = /^config\.[A-Za-z_][A-Za-z0-9_]*$/

function parseOutput(body: string): Node {
  const [head, ...filters] = body.split("|").map((s) => s.trim())
  const envRef = head ? /^env\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(head) : null
  if (envRef)
    throw new TemplateError(
      `{{ ${body} }} would write the variable's value into the command as shell text; ` +
        `write "$${envRef[1]}" and declare ${envRef[1]} in the toolset's env: list (the shell then reads it as data)`,
    )
  if (!head || !(IDENT.test(head) || CONFIG_REF.test(head)))
    throw new TemplateError(`unsupported expression {{ ${body} }}`)
  let fallback: Literal | undefined
  for (const filter of filters) {
    const m = /^(?:default|d)\(\s*([\s\S]*?)\s*(?:,\s*(?:true|True)\s*)?\)$/.exec(filter)
    const literal = m ? parseExpr(m[1]!) : undefined
    if (literal?.t !== "lit") {
      throw new TemplateError(
        `unsupported filter "${filter}" in {{ ${body} }}: only default(<literal>) is supported`,
      )
    }
    fallback = literal.value
  }
  return { t: "out", name: head, fallback }
}

/** Conditions: names, literals, ==, !=, not, and, or, parentheses, `is [not] defined/none`. */
function parseExpr(source: string): Expr {
  const tokens =
    source.match(
      /'[^']*'|"[^"]*"|==|!=|\(|\)|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?|-?\d+(?:\.\d+)?|\S/g,
    ) ?? []
  let pos = 0
  const peek = () => tokens[pos]
  const accept = (token: string): boolean => {
    if (tokens[pos] !== token) return false
    pos++
    return true
  }
  const take = (want?: string) => {
    const token = tokens[pos++]
    if (token === undefined || (want !== undefined && token !== want)) {
      throw new TemplateError(`cannot parse condition "${source.trim()}"`)
    }
    return token
  }
  const or = (): Expr => {
    let e = and()
    while (accept("or")) e = { t: "or", a: e, b: and() }
    return e
  }
  const and = (): Expr => {
    let e = not()
    while (accept("and")) e = { t: "and", a: e, b: not() }
    return e
  }
  const not = (): Expr => (accept("not") ? { t: "not", e: not() } : compare())
  const compare = (): Expr => {
    const a = atom()
    const op = peek()
    if ((op === "==" || op === "!=") && accept(op)) return { t: "cmp", op, a, b: atom() }
    if (accept("is")) {
      const negate = accept("not")
      const test = take()
      if (test !== "defined" && test !== "none") throw new TemplateError(`unsupported test "is ${test}"`)
      return { t: "is", e: a, test, negate }
    }
    return a
  }
  const atom = (): Expr => {
    const token = take()
    if (token === "(") {
      const e = or()
      take(")")
      return e
    }
    if (/^['"]/.test(token)) return { t: "lit", value: token.slice(1, -1) }
    if (/^-?\d/.test(token)) return { t: "lit", value: Number(token) }
    if (token === "true" || token === "True") return { t: "lit", value: true }
    if (token === "false" || token === "False") return { t: "lit", value: false }
    if (token === "none" || token === "None") return { t: "lit", value: null }
    if (CONFIG_REF.test(token)) return { t: "var", name: token }
    if (IDENT.test(token) && !["and", "or", "not", "is"].includes(token)) return { t: "var", name: token }
    throw new TemplateError(`cannot parse condition "${source.trim()}"`)
  }
  const e = or()
  if (pos !== tokens.length) throw new TemplateError(`cannot parse condition "${source.trim()}"`)
  return e
}
