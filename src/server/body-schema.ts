import { Kind, type TSchema } from "@sinclair/typebox"
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler"
import { type ValueError, type ValueErrorIterator, ValueErrorType } from "@sinclair/typebox/value"
import { type FieldError, RequestError } from "../errors.ts"
import { Slicer } from "../offloop/yield.ts"

const MAX_FIELD_ERRORS = 20

/**
 * A request body's schema, compiled once, on first use: compiling the chat request's costs 10-20
 * ms, which `serve` pays in its warm-up (warm-up.ts) rather than before it listens. `parse` is the
 * only type check a POST route runs: it happens before any semantic check, coerces nothing (a
 * string is never turned into a list), and a failure is CONTRACT §5's 422 with one entry per
 * failing field, each naming its JSON path and the expected type.
 */
export class BodySchema<T extends TSchema> {
  readonly #schema: T
  #check: TypeCheck<T> | undefined

  constructor(schema: T) {
    this.#schema = schema
  }

  /** The compiled check; the first call compiles it. */
  compiled(): TypeCheck<T> {
    this.#check ??= TypeCompiler.Compile(this.#schema)
    return this.#check
  }

  parse(body: unknown): T["static"] {
    const check = this.compiled()
    if (check.Check(body)) return body
    throw schemaError(fieldErrors(check.Errors(body)))
  }

  /**
   * `parse` for a body whose top-level `key` may be a long list (a client's 18 MB
   * `conversation_history` is 300,000 items: one synchronous check held /healthz for 100-150 ms,
   * finding R2). The rest of the body is checked at once, the list an item at a time against
   * `item`, with turns of the event loop between slices. Same 422, same paths.
   */
  async parseSliced(body: unknown, key: string, item: BodySchema<TSchema>): Promise<T["static"]> {
    const list =
      typeof body === "object" && body !== null ? (body as Record<string, unknown>)[key] : undefined
    if (!Array.isArray(list) || list.length <= SLICED_ITEMS) return this.parse(body)
    const check = this.compiled()
    const rest = { ...(body as Record<string, unknown>), [key]: [] }
    const errors = check.Check(rest) ? [] : fieldErrors(check.Errors(rest))
    const itemCheck = item.compiled()
    const slicer = new Slicer()
    for (let i = 0; i < list.length && errors.length < MAX_FIELD_ERRORS; i++) {
      if (!itemCheck.Check(list[i])) errors.push(...fieldErrors(itemCheck.Errors(list[i]), `/${key}/${i}`))
      if (i % ITEMS_PER_TICK === 0) await slicer.tick()
    }
    if (errors.length > 0) throw schemaError(errors.slice(0, MAX_FIELD_ERRORS))
    return body
  }
}

/** Lists up to this many items are checked with the rest of the body (well under a millisecond). */
const SLICED_ITEMS = 1_000
const ITEMS_PER_TICK = 256

function schemaError(errors: FieldError[]): RequestError {
  const first = errors[0]
  const detail = first
    ? `The request body does not match the schema: ${first.message} (at ${first.path}).`
    : "The request body does not match the schema."
  return new RequestError(detail, { kind: "schema", errors })
}

/** `prefix`: the path of the value checked, when it is part of a body (a list item). */
function fieldErrors(iterator: ValueErrorIterator, prefix = ""): FieldError[] {
  const errors: FieldError[] = []
  const seen = new Set<string>()
  for (const error of leaves(iterator)) {
    // A path is built from the caller's keys: one 100 kB key must not come back whole (twice).
    const path = shortened(`${prefix}${error.path}` || "/")
    // One entry per field: a missing property also fails its own type check at the same path.
    if (seen.has(path)) continue
    seen.add(path)
    errors.push({ path, message: describe(error) })
    if (errors.length >= MAX_FIELD_ERRORS) break
  }
  return errors
}

/**
 * The errors to report. A union (`string or image object`, `string, null or list of parts`)
 * whose value has the JSON type of exactly one of its members reports that member's own errors,
 * so a bad field inside an image object is named, not the whole image.
 */
function* leaves(iterator: Iterable<ValueError>): Generator<ValueError> {
  for (const error of iterator) {
    if (error.type === ValueErrorType.Union) {
      const members = (error.schema as { anyOf?: TSchema[] }).anyOf ?? []
      const matching = members.flatMap((m, i) => (typeNames(m).includes(jsonType(error.value)) ? [i] : []))
      const only = matching.length === 1 ? error.errors[matching[0] ?? 0] : undefined
      if (only) {
        yield* leaves(only)
        continue
      }
    }
    yield error
  }
}

function describe(error: ValueError): string {
  const expected = expectedOf(error.schema)
  if (error.value === undefined) return `Required field missing: expected ${expected}`
  const found = jsonType(error.value)
  if (typeNames(error.schema).includes(found)) {
    // The right JSON type with a wrong value: an empty string, a literal that differs.
    if (error.type === ValueErrorType.StringMinLength) return "Expected a non-empty string"
    return `Expected ${expected}, found ${preview(error.value)}`
  }
  return `Expected ${expected}, found ${found}`
}

/** The schema in words: `string`, `boolean or null`, `"function"`. */
function expectedOf(schema: TSchema): string {
  const named = (schema as { expected?: string }).expected
  if (named) return named
  const anyOf = (schema as { anyOf?: TSchema[] }).anyOf
  if (anyOf) return inWords([...new Set(anyOf.map(expectedOf))])
  if (schema[Kind] === "Literal") return JSON.stringify((schema as { const?: unknown }).const)
  return inWords(typeNames(schema)) || "a valid value"
}

/** `a`, `a or b`, `a, b or c`. */
function inWords(names: string[]): string {
  return names.length < 2 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`
}

const MAX_PATH_CHARS = 200

function shortened(path: string): string {
  return path.length > MAX_PATH_CHARS ? `${path.slice(0, MAX_PATH_CHARS)}…` : path
}

/** A short rendering of a caller's value: a huge string is never echoed back whole. */
function preview(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  return String(JSON.stringify(value)).slice(0, 40)
}

/** The JSON types a schema accepts. */
function typeNames(schema: TSchema): string[] {
  const anyOf = (schema as { anyOf?: TSchema[] }).anyOf
  if (anyOf) return anyOf.flatMap(typeNames)
  switch (schema[Kind]) {
    case "String":
      return ["string"]
    case "Number":
    case "Integer":
      return ["number"]
    case "Boolean":
      return ["boolean"]
    case "Null":
      return ["null"]
    case "Array":
      return ["array"]
    case "Object":
    case "Record":
      return ["object"]
    case "Literal":
      return [jsonType((schema as { const?: unknown }).const)]
    default:
      return []
  }
}

function jsonType(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  return typeof value === "bigint" ? "number" : typeof value
}
