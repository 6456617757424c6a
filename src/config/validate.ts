import type { TSchema } from "@sinclair/typebox"
import type { TypeCheck } from "@sinclair/typebox/compiler"
import { type ValueError, ValueErrorType } from "@sinclair/typebox/value"
import { ConfigError } from "../errors.ts"

/** Where a value came from, for messages: `file: base.key.path: expected ...`. */
export type Origin = { file?: string | undefined; base?: string | undefined }

/**
 * Checks a value read from an operator's file against its compiled TypeBox schema and throws a
 * ConfigError naming the file, the key path and the expected form. The config file, toolset files
 * and `toolsets:` overrides all report through here, so their messages read alike. A schema may
 * carry `expected` (e.g. "a positive integer") to say the form in the operator's words.
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
  throw new ConfigError(
    `${at}${describeValueError(error, value, origin.base)}`,
    origin.file ?? origin.base ?? "",
  )
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
    return `${where}: unknown key. Allowed keys here: ${allowed.join(", ")}.`
  }
  if (expected) {
    const required = error.type === ValueErrorType.ObjectRequiredProperty ? "required, " : ""
    return `${keyPath}: ${required}expected ${expected}`
  }
  return `${keyPath}: ${error.message.toLowerCase()} (got ${JSON.stringify(error.value) ?? "nothing"}).`
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
