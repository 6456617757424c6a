/**
 * HolmesGPT-compatible command templates (`{{ name }}`, `{{ name | default('x') }}`,
 * `{% if %}…{% elif %}…{% else %}…{% endif %}`) that cannot inject. `{% if %}` picks structure at
 * render time; a value never becomes script text. Each `{{ }}` turns into a reference to an
 * environment variable holding the value, written for the shell quoting around the placeholder
 * (see shellContexts), and where that quoting cannot be determined rendering fails closed.
 * Where bash evaluates the value itself (arithmetic, subscripts, variable names, eval: see
 * evaluatedPlaceholders) quoting cannot help, so only an integer goes there; given the declared
 * parameter types, a non-integer parameter in such a place is refused at load.
 */

import { evaluatedPlaceholders, PROBE } from "./evaluated-context.ts"
import { type Interpreted, interpretedMessage, interpretedPlaceholders } from "./interpreted-context.ts"
import { MARK, MARK_END, MARK_RE, type ShellContext, shellContexts } from "./shell-context.ts"
import { TemplateError } from "./template-error.ts"
import { CONFIG_REF, type Expr, type Literal, type Node, parseTemplate } from "./template-syntax.ts"

export { TemplateError }

export type Placeholder = {
  name: string
  /** Only used in `{% if %}` conditions or with `| default(...)`: the value may be absent. */
  optional: boolean
}

export type TemplateOptions = {
  /**
   * The declared type of each parameter. Given, a placeholder where bash evaluates its value
   * (arithmetic, a variable name, eval) must belong to an `integer` parameter, checked at load.
   */
  parameterType?: (name: string) => string | undefined
  /** The `program:` kind a parameter declares (its value is then checked by that grammar). */
  parameterProgram?: (name: string) => string | undefined
}

export type RenderOptions = {
  /** Parameters whose values may start with `-` (YAML `allow_leading_dash: true`). */
  allowLeadingDash?: (name: string) => boolean
  /** The toolset's `config:`, read by `{{ config.key }}`. */
  config?: Readonly<Record<string, unknown>>
}

export type Rendered = {
  /** The script to hand to the shell; it references values only through `env`. */
  script: string
  /** `DUPIN_P_<name>` variables holding the values. */
  env: Record<string, string>
  /** The command with the values written in, for humans (logs, approval prompts); never run. */
  display: string
}

export const ENV_PREFIX = "DUPIN_P_"

/** A parsed template. Parse once at load (syntax errors are config errors), render per call. */
export class CommandTemplate {
  readonly #nodes: Node[]
  /** The command runs awk, which opens `/inet/…` and `/dev/fd/N` operands as special files (R16). */
  readonly #awk: boolean

  constructor(
    readonly source: string,
    options: TemplateOptions = {},
  ) {
    if (source.includes(MARK) || source.includes(MARK_END)) throw new TemplateError("unsupported characters")
    if (source.includes(PROBE)) throw new TemplateError(`"${PROBE}" is reserved`)
    this.#nodes = parseTemplate(source)
    this.#awk = /\b[gmn]?awk\b/.test(source)
    const { evaluated, interpreted } = checkedRefs(source, this.#nodes)
    for (const { name, by, kind, whole } of interpreted) {
      if (!options.parameterType || options.parameterType(name) === "integer") continue
      if (whole && kind !== undefined && options.parameterProgram?.(name) === kind) continue
      throw new TemplateError(interpretedMessage(name, by, kind, whole))
    }
    for (const { name, fallback, why } of evaluated) {
      const type = options.parameterType?.(name)
      if (options.parameterType && type !== "integer") {
        throw new TemplateError(
          `Parameter "${name}" is used ${why}, where bash evaluates its value (a value like ` +
            `a[$(cmd)] would run cmd); declare it \`type: integer\` (it is ${type ? `\`${type}\`` : "undeclared"}).`,
        )
      }
      if (fallback !== undefined && fallback !== null && !INTEGER.test(String(fallback)))
        throw new TemplateError(`The default of ${name} is used ${why} and is not an integer.`)
    }
  }

  /**
   * Every parameter name the template uses, in first-use order, for inferring undeclared
   * parameters. `config.key` references are the toolset's settings, not parameters.
   */
  placeholders(): Placeholder[] {
    // Optional: tested in a condition (so the template copes with its absence) or always defaulted.
    const order = new Set<string>()
    const guarded = new Set<string>()
    const bareUse = new Set<string>()
    const visitExpr = (e: Expr): void => {
      if (e.t === "var") {
        order.add(e.name)
        guarded.add(e.name)
      } else if (e.t === "not" || e.t === "is") visitExpr(e.e)
      else if (e.t !== "lit") {
        visitExpr(e.a)
        visitExpr(e.b)
      }
    }
    const visit = (nodes: Node[]): void => {
      for (const node of nodes) {
        if (node.t === "out") {
          order.add(node.name)
          if (node.fallback === undefined) bareUse.add(node.name)
        }
        if (node.t !== "if") continue
        for (const branch of node.branches) {
          visitExpr(branch.cond)
          visit(branch.body)
        }
        visit(node.otherwise)
      }
    }
    visit(this.#nodes)
    return [...order]
      .filter((name) => !CONFIG_REF.test(name))
      .map((name) => ({ name, optional: guarded.has(name) || !bareUse.has(name) }))
  }

  /** Throws TemplateError for a value that is refused or a placeholder whose quoting is unclear. */
  render(parameters: Record<string, unknown>, options: RenderOptions = {}): Rendered {
    const params = withConfig(parameters, options.config)
    const parts: Array<string | Ref> = []
    const emit = (nodes: Node[]): void => {
      for (const node of nodes) {
        if (node.t === "text") parts.push(node.text)
        else if (node.t === "out") {
          const raw = params[node.name] ?? node.fallback ?? undefined
          parts.push({
            name: node.name,
            fallback: node.fallback,
            value: raw === undefined || raw === null ? undefined : valueText(raw),
          })
        } else {
          const chosen = node.branches.find((b) => truthy(evaluate(b.cond, params)))
          emit(chosen ? chosen.body : node.otherwise)
        }
      }
    }
    emit(this.#nodes)

    const { refs, marked, contexts, evaluated } = analyse(parts)
    const env: Record<string, string> = {}
    const variables = new Map<string, string>()
    const references = refs.map((ref, i) => {
      const context = contexts[i]!
      if (ref.value === undefined || context === "comment") return ""
      const why = evaluated.get(i)
      if (why !== undefined && !INTEGER.test(ref.value)) {
        throw new TemplateError(
          `The value of ${ref.name} must be an integer: this command uses it ${why}, where bash ` +
            "would evaluate it.",
        )
      }
      checkValue(ref.name, ref.value, context, options)
      if (this.#awk && GAWK_SPECIAL.test(ref.value))
        throw new TemplateError(
          `The value of ${ref.name} is a gawk special file name (a network connection or a descriptor).`,
        )
      // One variable per distinct (name, value); a second value only comes from a `default`.
      const key = `${ref.name}\0${ref.value}`
      let variable = variables.get(key)
      if (!variable) {
        variable = ENV_PREFIX + ref.name.replace(".", "_")
        if (variable in env) variable = `${variable}_${variables.size}`
        variables.set(key, variable)
        env[variable] = ref.value
      }
      return reference(variable, context)
    })
    const fill = (f: (i: number) => string) => marked.replace(MARK_RE, (_, i: string) => f(Number(i)))
    return { script: fill((i) => references[i]!), env, display: fill((i) => refs[i]!.value ?? "") }
  }
}

/** Names a template uses (see CommandTemplate.placeholders). Throws TemplateError on bad syntax. */
export function templatePlaceholders(source: string): Placeholder[] {
  return new CommandTemplate(source).placeholders()
}

// ---------------------------------------------------------------------------------------------
// Placement

type Ref = { name: string; fallback: Literal | undefined; value?: string | undefined }

/** gawk's special file names: `/inet/tcp/…` connects or listens, past the egress guard. */
const GAWK_SPECIAL = /^\/(inet[46]?(\/|$)|dev\/(fd\/|std(in|out|err)$))/

/** An integer bash reads as one: no base prefix, no leading zero (octal), within 64 bits. */
const INTEGER = /^-?(?:0|[1-9][0-9]{0,17})$/
/** `{% if %}` shapes checked at load; past this the template is refused rather than half-checked. */
const MAX_VARIANTS = 256

/** The quoting context of each placeholder and why bash would evaluate it, if it would. */
function analyse(parts: Array<string | Ref>) {
  const refs = parts.filter((p): p is Ref => typeof p !== "string")
  const marked = parts
    .map((p) => (typeof p === "string" ? p : `${MARK}${refs.indexOf(p)}${MARK_END}`))
    .join("")
  let shape = shapes.get(marked)
  if (!shape) {
    const contexts = shellContexts(marked)
    const probe = marked.replace(MARK_RE, (_, i: string) => reference(PROBE + i, contexts[Number(i)]!))
    shape = { contexts, probe, evaluated: evaluatedPlaceholders(probe) }
    if (shapes.size >= 1024) shapes.clear()
    shapes.set(marked, shape)
  }
  return { refs, marked, ...shape }
}

/**
 * The analysis by marked text: it depends on where the placeholders sit, not on their values, so a
 * template parses with bash once per `{% if %}` shape rather than on every call (two per call:
 * the approval text and the run).
 */
const shapes = new Map<
  string,
  { contexts: string[]; probe: string; evaluated: ReturnType<typeof evaluatedPlaceholders> }
>()

type EvaluatedRef = { name: string; fallback: Literal | undefined; why: string }
type InterpretedRef = Interpreted & { name: string }
type Checked = { evaluated: EvaluatedRef[]; interpreted: InterpretedRef[] }
/** By template text: the schema, the loader and YamlTool each build the same template at load. */
const checked = new Map<string, Checked | TemplateError>()

/**
 * The placeholders bash would evaluate in any shape `{% if %}` can give the command, so such a
 * placement is a load error rather than a surprise on the first call that takes that branch.
 */
function checkedRefs(source: string, nodes: Node[]): Checked {
  let result = checked.get(source)
  if (!result) {
    try {
      const shapes = variants(nodes).map(analyse)
      result = {
        evaluated: shapes.flatMap(({ refs, evaluated }) =>
          [...evaluated].map(([i, why]) => ({ name: refs[i]!.name, fallback: refs[i]!.fallback, why })),
        ),
        interpreted: shapes.flatMap(({ refs, probe }) =>
          [...interpretedPlaceholders(probe)].map(([i, found]) => ({ name: refs[i]!.name, ...found })),
        ),
      }
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error
      result = error
    }
    if (checked.size >= 1024) checked.clear()
    checked.set(source, result)
  }
  if (result instanceof TemplateError) throw result
  return result
}

/** Every text `{% if %}` can produce, placeholders left as refs. */
function variants(nodes: Node[]): Array<Array<string | Ref>> {
  let out: Array<Array<string | Ref>> = [[]]
  for (const node of nodes) {
    const options: Array<Array<string | Ref>> =
      node.t === "text"
        ? [[node.text]]
        : node.t === "out"
          ? [[{ name: node.name, fallback: node.fallback }]]
          : [...node.branches.flatMap((b) => variants(b.body)), ...variants(node.otherwise)]
    out = out.flatMap((prefix) => options.map((option) => [...prefix, ...option]))
    if (out.length > MAX_VARIANTS)
      throw new TemplateError(`more than ${MAX_VARIANTS} {% if %} combinations to check; split the command`)
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Values

function valueText(value: unknown): string {
  if (typeof value === "string") return value
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  return JSON.stringify(value)
}

function checkValue(name: string, value: string, context: ShellContext, options: RenderOptions): void {
  // Environment values are C strings: a NUL would silently cut the value short.
  if (value.includes("\0")) throw new TemplateError(`The value of ${name} contains a NUL character.`)
  if (value.startsWith("-") && !options.allowLeadingDash?.(name)) {
    throw new TemplateError(
      `The value of ${name} starts with "-" and would be read as an option of the command; ` +
        "this parameter does not allow that. Pass the value without the leading dash.",
    )
  }
  // bash evaluates the operands of (( )), $(( )) and [[ -eq ]] as arithmetic, where `a[$(cmd)]`
  // runs cmd even from a quoted expansion.
  if ((context.endsWith("+arith") || context.endsWith("+test")) && /[[\]$`()]/.test(value)) {
    throw new TemplateError(
      `The value of ${name} contains characters not allowed in an arithmetic or [[ ]] context.`,
    )
  }
}

function reference(variable: string, context: ShellContext): string {
  switch (context.split("+")[0]) {
    case "bare":
      // Empty or unset renders to nothing, as it does in HolmesGPT; set renders one quoted word.
      return `\${${variable}:+"$${variable}"}`
    case "dq":
      return `\${${variable}}`
    case "sq":
      return `'"\${${variable}}"'`
    case "dsq":
      return `'"\${${variable}}"$'`
    default:
      return ""
  }
}

/** The values by name, `config.key` included, so lookups need no second path. */
function withConfig(
  params: Record<string, unknown>,
  config: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  // Only the toolset's config answers `config.key`: a caller's argument of that name is dropped.
  const all = Object.fromEntries(Object.entries(params).filter(([name]) => !name.includes(".")))
  for (const [key, value] of Object.entries(config ?? {})) all[`config.${key}`] = value
  return all
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0
  if (value !== null && typeof value === "object") return Object.keys(value).length > 0
  return Boolean(value)
}

function evaluate(e: Expr, params: Record<string, unknown>): unknown {
  switch (e.t) {
    case "var":
      return params[e.name] ?? null
    case "lit":
      return e.value
    case "not":
      return !truthy(evaluate(e.e, params))
    case "and":
      return truthy(evaluate(e.a, params)) && truthy(evaluate(e.b, params))
    case "or":
      return truthy(evaluate(e.a, params)) || truthy(evaluate(e.b, params))
    case "cmp": {
      const equal = evaluate(e.a, params) === evaluate(e.b, params)
      return e.op === "==" ? equal : !equal
    }
    case "is": {
      const value = e.e.t === "var" ? params[e.e.name] : evaluate(e.e, params)
      const result =
        e.test === "defined" ? value !== undefined && value !== null : value === null || value === undefined
      return e.negate ? !result : result
    }
  }
}
