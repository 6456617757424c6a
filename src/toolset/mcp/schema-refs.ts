/**
 * `$ref` in an MCP tool's input schema (untrusted: the server writes it). Only references inside
 * the schema are allowed (no fetch of a remote schema), each must point at a schema that exists,
 * and no chain of references may come back to where it started without moving into the arguments
 * (`a: {$ref: b}, b: {$ref: a}`): a validator would recurse until the stack overflows.
 * Recursion through properties or items (a tree of nodes) is fine: the arguments end.
 */

/** Keywords whose schemas apply at the same place in the arguments as the schema holding them. */
const SAME_PLACE_ONE = ["not", "if", "then", "else"]
const SAME_PLACE_LIST = ["allOf", "anyOf", "oneOf"]
const SAME_PLACE_MAP = ["dependentSchemas"]

/** Why the schema's references cannot be used, or undefined. */
export function refProblem(root: Record<string, unknown>): string | undefined {
  const refs: Array<{ at: string; ref: unknown }> = []
  collectRefs(root, "", refs, 0)
  for (const { at, ref } of refs) {
    if (typeof ref !== "string") return `${at}/$ref: expected a string`
    if (ref !== "#" && !ref.startsWith("#/"))
      return `${at}/$ref: only references inside the schema (#/...) are used, not ${JSON.stringify(ref.slice(0, 100))}`
    if (resolve(root, ref) === undefined)
      return `${at}/$ref: ${JSON.stringify(ref.slice(0, 100))} points at no schema`
  }
  return cycle(root)
}

function collectRefs(
  schema: unknown,
  at: string,
  out: Array<{ at: string; ref: unknown }>,
  depth: number,
): void {
  if (depth > 64 || typeof schema !== "object" || schema === null) return
  if (Array.isArray(schema)) {
    for (const [i, item] of schema.entries()) collectRefs(item, `${at}/${i}`, out, depth + 1)
    return
  }
  const record = schema as Record<string, unknown>
  if ("$ref" in record) out.push({ at, ref: record.$ref })
  for (const [key, value] of Object.entries(record)) {
    if (key !== "$ref" && key !== "enum" && key !== "const" && key !== "default" && key !== "examples")
      collectRefs(value, `${at}/${key}`, out, depth + 1)
  }
}

/** The value at a `#/a/b` pointer, or undefined. */
function resolve(root: unknown, ref: string): unknown {
  let node: unknown = root
  for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return typeof node === "object" && node !== null && !Array.isArray(node) ? node : undefined
}

/** A loop of schemas applied at the same place in the arguments, found by a depth-first walk. */
function cycle(root: Record<string, unknown>): string | undefined {
  const state = new Map<object, "open" | "done">()
  const visit = (schema: unknown, at: string): string | undefined => {
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return undefined
    const seen = state.get(schema)
    if (seen === "open") return `${at || "/"}: its $ref chain comes back to itself`
    if (seen === "done") return undefined
    state.set(schema, "open")
    for (const [next, where] of samePlace(root, schema as Record<string, unknown>, at)) {
      const problem = visit(next, where)
      if (problem) return problem
    }
    state.set(schema, "done")
    return undefined
  }
  // Every schema reached from a ref starts a walk; refs were collected from the whole document.
  const starts: Array<{ at: string; ref: unknown }> = []
  collectRefs(root, "", starts, 0)
  for (const start of [{ at: "", ref: "#" }, ...starts]) {
    const problem = visit(resolve(root, start.ref as string), start.at)
    if (problem) return problem
  }
  return undefined
}

function samePlace(root: unknown, schema: Record<string, unknown>, at: string): Array<[unknown, string]> {
  const out: Array<[unknown, string]> = []
  if (typeof schema.$ref === "string") out.push([resolve(root, schema.$ref), `${at}/$ref`])
  for (const key of SAME_PLACE_ONE) if (key in schema) out.push([schema[key], `${at}/${key}`])
  for (const key of SAME_PLACE_LIST) {
    const value = schema[key]
    if (Array.isArray(value)) for (const [i, item] of value.entries()) out.push([item, `${at}/${key}/${i}`])
  }
  for (const key of SAME_PLACE_MAP) {
    const value = schema[key]
    if (typeof value === "object" && value !== null)
      for (const [name, item] of Object.entries(value)) out.push([item, `${at}/${key}/${name}`])
  }
  return out
}
