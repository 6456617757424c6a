/**
 * A small JSON Schema validator for the subset providers accept for strict structured outputs
 * (`response_format.json_schema`): type (one or a list), properties, required,
 * additionalProperties, items, enum, const, anyOf, nullable, $ref into $defs/definitions, and the
 * common string/number/array bounds. A schema using anything else is refused when compiled, so an
 * answer is never accepted by a validator that silently ignored part of the schema.
 */

type Schema = Record<string, unknown> | boolean

export type CompiledSchema = {
  /** Why `value` does not match, naming the JSON pointer of the first problem; undefined when it does. */
  validate(value: unknown): string | undefined
}

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])

/** Keywords that only annotate; they never change whether a value matches. */
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
  if (!isObject(schema)) throw new SchemaProblem("", "the schema must be a JSON object")
  const patterns = new Map<string, RegExp>()
  check(schema, schema, "", patterns, 0)
  return {
    validate: (value) => validate(schema, value, "", schema, patterns, 0),
  }
}

/** A schema that cannot be used; `pointer` locates the problem inside the schema. */
export class SchemaProblem extends Error {
  constructor(
    readonly pointer: string,
    problem: string,
  ) {
    super(pointer ? `${pointer}: ${problem}` : problem)
    this.name = "SchemaProblem"
  }
}

function check(
  node: unknown,
  root: Record<string, unknown>,
  at: string,
  patterns: Map<string, RegExp>,
  depth: number,
): void {
  if (typeof node === "boolean") return
  if (!isObject(node)) throw new SchemaProblem(at, "a schema must be an object or a boolean")
  if (depth > MAX_DEPTH) throw new SchemaProblem(at, `the schema is nested deeper than ${MAX_DEPTH} levels`)
  for (const key of Object.keys(node)) {
    if (!SUPPORTED.has(key))
      throw new SchemaProblem(at, `the keyword "${key}" is not supported for structured output`)
  }
  const sub = (child: unknown, path: string) => check(child, root, path, patterns, depth + 1)

  const type = node.type
  if (type !== undefined) {
    const list = Array.isArray(type) ? type : [type]
    if (list.length === 0 || !list.every((t) => typeof t === "string" && TYPES.has(t))) {
      throw new SchemaProblem(`${at}/type`, `type must be one of ${[...TYPES].join(", ")}, or a list of them`)
    }
  }
  if (node.properties !== undefined) {
    if (!isObject(node.properties))
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
    if (!isObject(value)) throw new SchemaProblem(`${at}/${defs}`, `${defs} must be an object`)
    for (const [name, child] of Object.entries(value)) sub(child, `${at}/${defs}/${pointerToken(name)}`)
  }
  if (node.$ref !== undefined) {
    if (typeof node.$ref !== "string") throw new SchemaProblem(`${at}/$ref`, "$ref must be a string")
    if (resolveRef(root, node.$ref) === undefined) {
      throw new SchemaProblem(`${at}/$ref`, `$ref "${node.$ref}" does not point inside this schema`)
    }
  }
  if (node.pattern !== undefined) {
    if (typeof node.pattern !== "string") throw new SchemaProblem(`${at}/pattern`, "pattern must be a string")
    try {
      patterns.set(node.pattern, new RegExp(node.pattern, "u"))
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

function validate(
  schema: Schema,
  value: unknown,
  at: string,
  root: Record<string, unknown>,
  patterns: Map<string, RegExp>,
  depth: number,
): string | undefined {
  if (schema === true) return undefined
  if (schema === false) return `${where(at)}: no value is allowed here`
  // A $ref cycle (a recursive schema) only recurses as deep as the value, but a self-reference
  // without structure ({"$ref": "#"}) would not; the depth cap stops it.
  if (depth > MAX_DEPTH * 4) return `${where(at)}: the value is nested too deeply`
  const again = (s: unknown, v: unknown, path: string) =>
    validate(s as Schema, v, path, root, patterns, depth + 1)

  if (value === null && schema.nullable === true) return undefined
  if (typeof schema.$ref === "string") {
    const problem = again(resolveRef(root, schema.$ref) ?? false, value, at)
    if (problem) return problem
  }
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[]
    if (!types.some((t) => hasType(value, t)))
      return `${where(at)}: expected ${types.join(" or ")}, got ${typeName(value)}`
  }
  if (schema.const !== undefined && !deepEqual(value, schema.const)) {
    return `${where(at)}: must be ${JSON.stringify(schema.const)}`
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(value, e))) {
    return `${where(at)}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`
  }
  if (Array.isArray(schema.anyOf)) {
    const problems = schema.anyOf.map((s) => again(s, value, at))
    if (problems.every((p) => p !== undefined))
      return `${where(at)}: matches none of the allowed forms (${problems[0]})`
  }
  if (typeof value === "string") {
    const length = [...value].length
    if (typeof schema.minLength === "number" && length < schema.minLength)
      return `${where(at)}: shorter than ${schema.minLength} characters`
    if (typeof schema.maxLength === "number" && length > schema.maxLength)
      return `${where(at)}: longer than ${schema.maxLength} characters`
    if (typeof schema.pattern === "string" && !patterns.get(schema.pattern)?.test(value)) {
      return `${where(at)}: does not match the pattern ${schema.pattern}`
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      return `${where(at)}: less than ${schema.minimum}`
    if (typeof schema.maximum === "number" && value > schema.maximum)
      return `${where(at)}: greater than ${schema.maximum}`
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) {
      return `${where(at)}: not greater than ${schema.exclusiveMinimum}`
    }
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) {
      return `${where(at)}: not less than ${schema.exclusiveMaximum}`
    }
    if (typeof schema.multipleOf === "number" && !isMultiple(value, schema.multipleOf)) {
      return `${where(at)}: not a multiple of ${schema.multipleOf}`
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems)
      return `${where(at)}: fewer than ${schema.minItems} items`
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
      return `${where(at)}: more than ${schema.maxItems} items`
    if (schema.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const problem = again(schema.items, value[i], `${at}/${i}`)
        if (problem) return problem
      }
    }
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {}
    for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      if (!Object.hasOwn(value, name)) return `${where(at)}: missing required property "${name}"`
    }
    for (const [name, child] of Object.entries(value)) {
      const path = `${at}/${pointerToken(name)}`
      if (Object.hasOwn(properties, name)) {
        const problem = again(properties[name], child, path)
        if (problem) return problem
      } else if (schema.additionalProperties === false) {
        return `${where(at)}: property "${name}" is not allowed`
      } else if (schema.additionalProperties !== undefined) {
        const problem = again(schema.additionalProperties, child, path)
        if (problem) return problem
      }
    }
  }
  return undefined
}

/** Local references only: `#`, `#/$defs/Name`, `#/definitions/Name`, or any JSON pointer into the root. */
function resolveRef(root: Record<string, unknown>, ref: string): Schema | undefined {
  if (ref === "#") return root
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined
    node = node[key]
  }
  return isObject(node) || typeof node === "boolean" ? node : undefined
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null
    case "boolean":
      return typeof value === "boolean"
    case "string":
      return typeof value === "string"
    case "number":
      return typeof value === "number" && Number.isFinite(value)
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
    case "array":
      return Array.isArray(value)
    case "object":
      return isObject(value)
    default:
      return false
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "number" && Number.isInteger(value)) return "integer"
  return typeof value
}

function isMultiple(value: number, of: number): boolean {
  const q = value / of
  return Math.abs(q - Math.round(q)) < 1e-9
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    )
  }
  return false
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function pointerToken(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1")
}

function where(at: string): string {
  return at || "the answer"
}
