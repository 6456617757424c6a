import type { TSchema } from "@sinclair/typebox"
import type { TypeCheck } from "@sinclair/typebox/compiler"
import { type ValueError, ValueErrorType } from "@sinclair/typebox/value"
import { ConfigError } from "../errors.ts"

/** Where a value came from, for messages: `file: base.key.path: expected ...`. */
export type Origin = { file?: string | undefined; base?: string | undefined }

/**
 * Checks a value read from an operator's file against its compiled TypeBox schema and throws a
 * ConfigError naming the file, the key path and the expected form. The config file, toolset files
 * and `toolsets:` overrides all report through here, so their messages read alike.
 */
export function assertValid<T extends TSchema>(
  check: TypeCheck<T>,
  value: unknown,
  origin: Origin,
): asserts value is T["static"] {
  if (check.Check(value)) return
  const error = check.Errors(value).First()
  if (!error) return
  const at = origin.file ? `${origin.file}: ` : ""
  throw new ConfigError(`${at}${describeValueError(error, origin.base)}`, origin.file ?? origin.base ?? "")
}

/** One error as `key.path: expected ...`, with unknown keys called out by name. */
export function describeValueError(error: ValueError, base?: string): string {
  const keyPath = joinKeyPath(base, error.path) || "(top level)"
  if (
    error.type === ValueErrorType.ObjectAdditionalProperties ||
    error.message.includes("additional properties")
  ) {
    const allowed = Object.keys((error.schema as { properties?: object }).properties ?? {})
    return `${keyPath}: unknown key. Allowed keys here: ${allowed.join(", ")}.`
  }
  return `${keyPath}: ${error.message.toLowerCase()} (got ${JSON.stringify(error.value) ?? "nothing"}).`
}

/** `base` + a JSON pointer, as the dotted path an operator reads in YAML. */
function joinKeyPath(base: string | undefined, pointer: string): string {
  const rest = pointer.replace(/^\//, "").replaceAll("/", ".")
  return [base, rest].filter(Boolean).join(".")
}
