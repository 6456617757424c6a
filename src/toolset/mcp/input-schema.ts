/**
 * An MCP tool's input schema: offered to the model whole, checked first so a malformed one skips
 * its tool (with a reason) instead of breaking the request, and used to validate arguments
 * before the call with a maintained JSON Schema validator.
 */
import { Validator } from "@cfworker/json-schema"
import { isRecord } from "../../is-record.ts"
import { refProblem } from "./schema-refs.ts"

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])
/** Keywords whose value is one schema, a list of schemas, or a map of schemas. */
const ONE = [
  "items",
  "additionalProperties",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
]
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"]
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
/** Nesting beyond this is refused: no model needs it, and a walk must end. */
const MAX_DEPTH = 32
/** A schema bigger than this (as JSON) is refused: it would crowd the window and slow every check. */
export const MAX_SCHEMA_BYTES = 64 * 1024

/** Why the schema cannot be offered, or undefined when it can. */
export function schemaProblem(schema: unknown): string | undefined {
  if (!isRecord(schema)) return "the input schema is not an object"
  if (schema.type !== "object")
    return `the input schema's type is ${JSON.stringify(schema.type)}, not "object"`
  const size = JSON.stringify(schema).length
  if (size > MAX_SCHEMA_BYTES) return `the input schema is ${size} bytes, more than ${MAX_SCHEMA_BYTES}`
  const problem = walk(schema, "", 0) ?? refProblem(schema)
  if (problem) return problem
  try {
    validatorFor(schema).validate({})
  } catch (error) {
    return `the input schema cannot be used: ${error instanceof Error ? error.message : String(error)}`
  }
  return undefined
}

function walk(schema: unknown, at: string, depth: number): string | undefined {
  if (typeof schema === "boolean") return undefined
  if (!isRecord(schema)) return `${at || "/"}: a schema must be an object`
  if (depth > MAX_DEPTH) return `${at}: nested deeper than ${MAX_DEPTH} levels`
  const type = schema.type
  const types = Array.isArray(type) ? type : type === undefined ? [] : [type]
  for (const t of types) {
    if (typeof t !== "string" || !JSON_TYPES.has(t))
      return `${at}/type: ${JSON.stringify(t)} is not a JSON type`
  }
  if (schema.required !== undefined) {
    const ok = Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string")
    if (!ok) return `${at}/required: expected a list of property names`
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) return `${at}/enum: expected a list`
  for (const key of ONE) {
    if (!(key in schema)) continue
    const value = schema[key]
    const items = key === "items" && Array.isArray(value) ? value : [value]
    for (const [i, item] of items.entries()) {
      const problem = walk(item, `${at}/${key}${items.length > 1 ? `/${i}` : ""}`, depth + 1)
      if (problem) return problem
    }
  }
  for (const key of LIST) {
    if (!(key in schema)) continue
    const value = schema[key]
    if (!Array.isArray(value)) return `${at}/${key}: expected a list of schemas`
    for (const [i, item] of value.entries()) {
      const problem = walk(item, `${at}/${key}/${i}`, depth + 1)
      if (problem) return problem
    }
  }
  for (const key of MAP) {
    if (!(key in schema)) continue
    const value = schema[key]
    if (!isRecord(value)) return `${at}/${key}: expected a mapping of schemas`
    for (const [name, item] of Object.entries(value)) {
      const problem = walk(item, `${at}/${key}/${name}`, depth + 1)
      if (problem) return problem
    }
  }
  return undefined
}

/** Checks arguments against the schema; a list of problems, empty when they fit. */
export function argumentProblems(validator: Validator, args: unknown): string[] {
  let result: ReturnType<Validator["validate"]>
  try {
    result = validator.validate(args)
  } catch (error) {
    return [
      `the tool's input schema cannot check them (${error instanceof Error ? error.message.slice(0, 200) : String(error)})`,
    ]
  }
  if (result.valid) return []
  // The innermost errors say what is wrong; the outer ones only that something below is.
  const errors = result.errors.filter(
    (e, _, all) => !all.some((o) => o !== e && o.instanceLocation.startsWith(`${e.instanceLocation}/`)),
  )
  return (errors.length > 0 ? errors : result.errors)
    .slice(0, 5)
    .map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${e.error}`)
}

/**
 * The validator of a tool's arguments. It ignores `pattern` and `patternProperties`: their regular
 * expressions come from the server and a crafted one (`^(a+)+$`) can block the event loop for
 * seconds on a short argument. `format` only annotates too: the validator checks formats with
 * regular expressions of its own, and its `url` one is exponential on model-chosen text
 * (`http://aaaa…!`: 28 s for 20 arguments, finding R1). The server checks its own patterns and
 * formats.
 */
export function validatorFor(schema: Record<string, unknown>): Validator {
  const draft = typeof schema.$schema === "string" && schema.$schema.includes("draft-07") ? "7" : "2020-12"
  return new Validator(withoutPatterns(schema) as object, draft, false)
}

function withoutPatterns(schema: unknown): unknown {
  if (!isRecord(schema)) return schema
  const out: Record<string, unknown> = { ...schema }
  delete out.pattern
  delete out.format
  if ("patternProperties" in out) {
    delete out.patternProperties
    // Properties the patterns allowed would now count as additional.
    delete out.additionalProperties
    delete out.unevaluatedProperties
  }
  for (const key of ONE) {
    if (!(key in out)) continue
    const value = out[key]
    out[key] = Array.isArray(value) ? value.map(withoutPatterns) : withoutPatterns(value)
  }
  for (const key of LIST) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(withoutPatterns)
  for (const key of MAP) {
    const value = out[key]
    if (isRecord(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, withoutPatterns(item)]),
      )
  }
  return out
}
