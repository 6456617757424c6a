/**
 * Structured answers (`response_format.json_schema`): which schemas dupin accepts, and whether an
 * answer matches one. Accepted is the subset providers take for strict structured outputs: type
 * (one or a list), properties, required, additionalProperties, items, enum, const, anyOf,
 * nullable, $ref into $defs/definitions, and the common string/number/array bounds; `format` is
 * checked for the formats the validator knows except `url` (its regex is exponential on
 * `http://aaaa…!`), and otherwise only annotates. Answers are checked in a worker with a deadline
 * (server/response-format.ts): `pattern` runs a backtracking engine. A schema using
 * anything else is refused when compiled, so an answer is never accepted by a validator that
 * silently ignored part of the schema. Matching is done by `@cfworker/json-schema` (draft
 * 2020-12, interpreted, no code generation: it runs in the compiled binary).
 */
import { type OutputUnit, Validator } from "@cfworker/json-schema"
import { isRecord } from "./is-record.ts"

type Schema = Record<string, unknown> | boolean

export type CompiledSchema = {
  /** Why `value` does not match, naming the JSON pointer of the first problem; undefined when it does. */
  validate(value: unknown): string | undefined
}

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])

/** Keywords that only annotate (or, for `format`, check known formats); no structure to check. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "$schema",
  "$id",
  "$comment",
  "format",
  "deprecated",
  "readOnly",
  "writeOnly",
])

const SUPPORTED = new Set([
  ...ANNOTATIONS,
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "nullable",
  "$ref",
  "$defs",
  "definitions",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
])

const MAX_DEPTH = 64

/** Checks that `schema` is usable and returns its validator; throws `SchemaProblem` otherwise. */
export function compileJsonSchema(schema: unknown): CompiledSchema {
  if (!isRecord(schema)) throw new SchemaProblem("", "the schema must be a JSON object")
  check(schema, schema, "", 0)
  const standard = standardSchema(schema) as Record<string, unknown>
  const validator = new Validator(standard, "2020-12", true)
  return {
    validate: (value) => {
      try {
        const { valid, errors } = validator.validate(value)
        return valid ? undefined : describe(errors, standard)
      } catch (error) {
        // A self-reference without structure ({"$ref": "#"}) or an absurdly deep answer.
        if (error instanceof RangeError) return "the answer: the value is nested too deeply"
        throw error
      }
    },
  }
}

/** One line for the model: where in the answer, and what is wrong there. */
function describe(errors: readonly OutputUnit[], root: unknown): string {
  const choice = errors.findIndex((e) => e.keyword === "anyOf")
  if (choice >= 0) {
    const first = errors[choice + 1]
    const detail = first ? ` (${sentence(first.error)})` : ""
    return `${where(errors[choice]?.instanceLocation)}: matches none of the allowed forms${detail}`
  }
  const leaf = errors[errors.length - 1]
  if (!leaf) return "the answer does not match the schema"
  if (leaf.keyword === "false") return `${where(leaf.instanceLocation)}: no value is allowed here`
  // The validator's text does not say what the bound was for these; the schema does.
  const bound = valueAt(root, leaf.keywordLocation)
  const own = bound === undefined ? undefined : OWN_WORDS[leaf.keyword]
  return `${where(leaf.instanceLocation)}: ${own ? own(bound) : sentence(leaf.error)}`
}

/**
 * The form a checked format wants, for the model's one correction: the validator's text names
 * the format only, and a model that wrote `12:00:00` for `time` (which needs an offset) or a
 * date-time with a space would write it again.
 */
const FORMAT_EXAMPLES: Record<string, string> = {
  "date-time": "2026-01-31T13:45:00Z (RFC 3339: T between date and time, and Z or an offset)",
  date: "2026-01-31",
  time: "13:45:00Z (with Z or an offset such as +02:00)",
  duration: "PT5M or P1DT2H (ISO 8601, whole numbers)",
  email: "ops@example.com",
  hostname: "web-1.example.com",
  ipv4: "192.0.2.10",
  ipv6: "2001:db8::1",
  uri: "https://example.com/path (absolute, with a scheme)",
  "uri-reference": "/path or https://example.com/path",
  uuid: "123e4567-e89b-12d3-a456-426614174000",
}

const OWN_WORDS: Record<string, (bound: unknown) => string> = {
  pattern: (p) => `does not match the pattern ${p}`,
  exclusiveMinimum: (n) => `must be greater than ${n}`,
  exclusiveMaximum: (n) => `must be less than ${n}`,
  format: (f) => {
    const example = typeof f === "string" ? FORMAT_EXAMPLES[f] : undefined
    return `is not a valid ${JSON.stringify(f)}${example ? `, e.g. ${example}` : ""}`
  },
}

/** The validator's message without its final period: the caller's sentence goes on after it. */
function sentence(text: string): string {
  return text.replace(/\.$/, "")
}

/** The value at a `#/...` JSON pointer of the schema, if there is one. */
function valueAt(root: unknown, location: string): unknown {
  let node = root
  for (const raw of location.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/**
 * The schema in standard JSON Schema: OpenAPI's `nullable: true` (which the validator does not
 * know) becomes null added to each keyword of the node that could refuse it. `format: "url"` is
 * dropped (not a standard format; the validator's regex for it backtracks exponentially). `$id` is dropped:
 * dupin resolves every `$ref` against the root (`check`), while the validator would resolve one
 * under a nested `$id` against that id and throw at the answer.
 */
function standardSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(standardSchema)
  if (!isRecord(node)) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "$id" || (key === "format" && value === "url")) continue
    out[key] =
      key === "enum" || key === "const" || key === "default" || key === "examples"
        ? value
        : standardSchema(value)
  }
  if (out.nullable !== true) {
    delete out.nullable
    return out
  }
  delete out.nullable
  if (out.type !== undefined)
    out.type = [...new Set([...(Array.isArray(out.type) ? out.type : [out.type]), "null"])]
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null]
  if (Object.hasOwn(out, "const")) {
    out.enum = [out.const, null]
    delete out.const
  }
  if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: "null" }]
  if (out.$ref !== undefined) {
    out.anyOf = [...((out.anyOf as unknown[]) ?? []), { $ref: out.$ref }, { type: "null" }]
    delete out.$ref
  }
  return out
}

/** A schema that cannot be used; `pointer` locates the problem inside the schema. */
export class SchemaProblem extends Error {
  constructor(
    readonly pointer: string,
    problem: string,
  ) {
    super(pointer ? `${short(pointer, 200)}: ${problem}` : problem)
    this.name = "SchemaProblem"
  }
}

function check(node: unknown, root: Record<string, unknown>, at: string, depth: number): void {
  if (typeof node === "boolean") return
  if (!isRecord(node)) throw new SchemaProblem(at, "a schema must be an object or a boolean")
  if (depth > MAX_DEPTH) throw new SchemaProblem(at, `the schema is nested deeper than ${MAX_DEPTH} levels`)
  for (const key of Object.keys(node)) {
    if (!SUPPORTED.has(key))
      throw new SchemaProblem(at, `the keyword "${short(key, 40)}" is not supported for structured output`)
  }
  const sub = (child: unknown, path: string) => check(child, root, path, depth + 1)

  const type = node.type
  if (type !== undefined) {
    const list = Array.isArray(type) ? type : [type]
    if (list.length === 0 || !list.every((t) => typeof t === "string" && TYPES.has(t))) {
      throw new SchemaProblem(`${at}/type`, `type must be one of ${[...TYPES].join(", ")}, or a list of them`)
    }
  }
  if (node.properties !== undefined) {
    if (!isRecord(node.properties))
      throw new SchemaProblem(`${at}/properties`, "properties must be an object")
    for (const [name, child] of Object.entries(node.properties))
      sub(child, `${at}/properties/${pointerToken(name)}`)
  }
  if (
    node.required !== undefined &&
    !(Array.isArray(node.required) && node.required.every((r) => typeof r === "string"))
  ) {
    throw new SchemaProblem(`${at}/required`, "required must be a list of property names")
  }
  if (node.additionalProperties !== undefined) sub(node.additionalProperties, `${at}/additionalProperties`)
  if (node.items !== undefined) {
    if (Array.isArray(node.items))
      throw new SchemaProblem(`${at}/items`, "tuple items are not supported; use one schema")
    sub(node.items, `${at}/items`)
  }
  if (node.enum !== undefined && !(Array.isArray(node.enum) && node.enum.length > 0)) {
    throw new SchemaProblem(`${at}/enum`, "enum must be a non-empty list")
  }
  if (node.anyOf !== undefined) {
    if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) {
      throw new SchemaProblem(`${at}/anyOf`, "anyOf must be a non-empty list")
    }
    node.anyOf.forEach((child, i) => {
      sub(child, `${at}/anyOf/${i}`)
    })
  }
  if (node.nullable !== undefined && typeof node.nullable !== "boolean") {
    throw new SchemaProblem(`${at}/nullable`, "nullable must be a boolean")
  }
  for (const defs of ["$defs", "definitions"] as const) {
    const value = node[defs]
    if (value === undefined) continue
    if (!isRecord(value)) throw new SchemaProblem(`${at}/${defs}`, `${defs} must be an object`)
    for (const [name, child] of Object.entries(value)) sub(child, `${at}/${defs}/${pointerToken(name)}`)
  }
  if (node.$ref !== undefined) {
    if (typeof node.$ref !== "string") throw new SchemaProblem(`${at}/$ref`, "$ref must be a string")
    if (resolveRef(root, node.$ref) === undefined) {
      throw new SchemaProblem(
        `${at}/$ref`,
        `$ref "${short(node.$ref, 80)}" does not point inside this schema`,
      )
    }
  }
  if (node.pattern !== undefined) {
    if (typeof node.pattern !== "string") throw new SchemaProblem(`${at}/pattern`, "pattern must be a string")
    try {
      new RegExp(node.pattern, "u")
    } catch {
      throw new SchemaProblem(`${at}/pattern`, `pattern is not a valid regular expression`)
    }
  }
  for (const key of ["minLength", "maxLength", "minItems", "maxItems"] as const) {
    const v = node[key]
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 0)) {
      throw new SchemaProblem(`${at}/${key}`, `${key} must be a non-negative integer`)
    }
  }
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const) {
    const v = node[key]
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v)))
      throw new SchemaProblem(`${at}/${key}`, `${key} must be a number`)
  }
  if (node.multipleOf !== undefined && (node.multipleOf as number) <= 0) {
    throw new SchemaProblem(`${at}/multipleOf`, "multipleOf must be greater than 0")
  }
}

/** Local references only: `#`, `#/$defs/Name`, `#/definitions/Name`, or any JSON pointer into the root. */
function resolveRef(root: Record<string, unknown>, ref: string): Schema | undefined {
  if (ref === "#") return root
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined
    node = node[key]
  }
  return isRecord(node) || typeof node === "boolean" ? node : undefined
}

/** A caller's text in a 400: never echoed whole (a client may send megabytes of it). */
function short(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function pointerToken(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1")
}

/** The validator's instance location (`#/a~1b`) as a JSON pointer, or "the answer" for the root. */
function where(location: string | undefined): string {
  const pointer = (location ?? "#").replace(/^#/, "")
  return pointer || "the answer"
}
