import { Kind, type TSchema } from "@sinclair/typebox"
import type { TypeCheck } from "@sinclair/typebox/compiler"
import { Value, type ValueError, ValueErrorType } from "@sinclair/typebox/value"
import { ConfigError } from "../errors.ts"
import { BOOLEAN_FORMS, normalizeBooleans } from "./booleans.ts"
import { closestKey } from "./did-you-mean.ts"

/** Where a value came from, for messages: `file: base.key.path: expected ...`. */
export type Origin = { file?: string | undefined; base?: string | undefined }

/** Errors listed in one ConfigError; the rest are counted ("and 3 more"). */
export const MAX_REPORTED_ERRORS = 20

/** What assertValid needs of a schema: a compiled TypeCheck, or `schemaCheck`'s. */
export type SchemaCheck<T extends TSchema> = Pick<TypeCheck<T>, "Schema" | "References" | "Check" | "Errors">

/**
 * A schema checked by walking it (TypeBox's Value) rather than compiled: for what is checked a few
 * times per process (a config file, a toolset file, an override), where compiling costs 10-20 ms
 * at start and walking well under one. The results and errors are the compiled check's.
 */
export function schemaCheck<T extends TSchema>(schema: T, references: TSchema[] = []): SchemaCheck<T> {
  return {
    Schema: () => schema,
    References: () => references,
    Check: (value): value is T["static"] => Value.Check(schema, references, value),
    Errors: (value) => Value.Errors(schema, references, value),
  }
}

/**
 * Checks a value read from an operator's file against its TypeBox schema and throws a
 * ConfigError listing every problem (one line each, up to MAX_REPORTED_ERRORS) with the file, the
 * key path and the expected form. The config file, toolset files and `toolsets:` overrides all
 * report through here, so their messages read alike. A schema may carry `expected` (e.g. "a
 * positive integer") to say the form in the operator's words.
 *
 * Booleans are normalised first, in place (CONTRACT §3: `yes/no/on/off/1/0/true/false` in any
 * case), so pass a value this load owns (freshly parsed YAML, or a copy).
 */
export function assertValid<T extends TSchema>(
  check: SchemaCheck<T>,
  value: unknown,
  origin: Origin,
): asserts value is T["static"] {
  normalizeBooleans(check.Schema(), value, check.References())
  if (check.Check(value)) return
  const at = origin.file ? `${origin.file}: ` : ""
  // One line per key path: TypeBox may report a path twice (a missing key: "required" and its type).
  const seen = new Set<string>()
  const report: string[] = []
  for (const error of check.Errors(value)) {
    const keyPath = keyPathOf(value, error.path, origin.base)
    if (seen.has(keyPath)) continue
    seen.add(keyPath)
    if (report.length < MAX_REPORTED_ERRORS)
      report.push(`${at}${describeValueError(error, value, origin.base)}`)
  }
  if (report.length === 0) return
  const more = seen.size - report.length
  if (more > 0) report.push(`and ${more} more error${more === 1 ? "" : "s"}`)
  throw new ConfigError(report.join("\n"), origin.file ?? origin.base ?? "")
}

/** One error as `key.path: expected ...`, with unknown keys called out by name. */
export function describeValueError(error: ValueError, root: unknown, base?: string): string {
  const keyPath = keyPathOf(root, error.path, base)
  const expected = (error.schema as { expected?: string }).expected
  if (
    error.type === ValueErrorType.ObjectAdditionalProperties ||
    error.message.includes("additional properties")
  ) {
    const allowed = Object.keys((error.schema as { properties?: object }).properties ?? {})
    // A stray key at the very top reads better with its place named: `(top level).toolset`.
    const where = keyPath.includes(".") || base ? keyPath : `(top level).${keyPath}`
    const key = error.path
      .slice(error.path.lastIndexOf("/") + 1)
      .replaceAll("~1", "/")
      .replaceAll("~0", "~")
    const guess = closestKey(key, allowed)
    const hint = guess ? ` Did you mean ${guess}?` : ""
    return `${where}: unknown key.${hint} Allowed keys here: ${allowed.join(", ")}.`
  }
  if (
    error.type === ValueErrorType.Boolean ||
    (error.type === ValueErrorType.Union && takesBoolean(error.schema))
  ) {
    return `${keyPath}: expected a boolean (${BOOLEAN_FORMS})`
  }
  if (!expected && error.type === ValueErrorType.ObjectRequiredProperty)
    return `${keyPath}: required, but missing`
  if (expected) {
    const required = error.type === ValueErrorType.ObjectRequiredProperty ? "required, " : ""
    return `${keyPath}: ${required}expected ${expected}`
  }
  return `${keyPath}: ${error.message.toLowerCase()} (got ${JSON.stringify(error.value) ?? "nothing"}).`
}

/** A union of a boolean and null (`supports_vision`): its error is the boolean's. */
function takesBoolean(schema: TSchema): boolean {
  const members = (schema as { anyOf?: TSchema[] }).anyOf ?? []
  return (
    members.some((m) => m[Kind] === "Boolean") &&
    members.every((m) => m[Kind] === "Boolean" || m[Kind] === "Null")
  )
}

/**
 * A JSON pointer as the path an operator reads in YAML: `toolsets.linux/host.tools[2].timeout`.
 * The value is walked alongside, so list indices are told from mapping keys that look like numbers.
 */
function keyPathOf(root: unknown, pointer: string, base: string | undefined): string {
  let path = base ?? ""
  let node = root
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~")
    path += Array.isArray(node) ? `[${key}]` : path ? `.${key}` : key
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined
  }
  return path || "(top level)"
}
