/**
 * Config booleans as operators write them (CONTRACT §3): `1/0/true/false/yes/no/on/off` in any
 * case. YAML 1.2 reads `yes`, `on` and `1` as a string or a number, so values are normalised
 * against the schema before it is checked: wherever the schema takes a boolean (config file,
 * toolset files, `toolsets.<name>.config` of code toolsets), one of these forms becomes true or
 * false and anything else stays as it is for the schema to refuse.
 */
import { Kind, type TSchema } from "@sinclair/typebox"
import { isRecord } from "../is-record.ts"

const TRUE = new Set(["1", "true", "yes", "on"])
const FALSE = new Set(["0", "false", "no", "off"])

/** The accepted forms, for messages. */
export const BOOLEAN_FORMS = "true/false, yes/no, on/off or 1/0"

/** A boolean form as its value, else undefined. */
export function booleanForm(value: unknown): boolean | undefined {
  const text =
    typeof value === "string" ? value.trim().toLowerCase() : typeof value === "number" ? String(value) : ""
  if (TRUE.has(text)) return true
  if (FALSE.has(text)) return false
  return undefined
}

type Schema = TSchema & {
  anyOf?: TSchema[]
  allOf?: TSchema[]
  items?: TSchema
  properties?: Record<string, TSchema>
  additionalProperties?: TSchema | boolean
  patternProperties?: Record<string, TSchema>
  $ref?: string
}

/**
 * Replaces boolean forms by booleans wherever `schema` takes a boolean, mutating `value`'s
 * containers in place; returns the (possibly replaced) value. `references` resolves `Ref`/`This`
 * (recursive schemas such as a tool parameter's `items`).
 */
export function normalizeBooleans(
  schema: TSchema,
  value: unknown,
  references: readonly TSchema[] = [],
): unknown {
  const refs = new Map<string, TSchema>()
  for (const r of references) if (r.$id) refs.set(r.$id, r)
  return walk(schema as Schema, value, refs)
}

function walk(schema: Schema, value: unknown, refs: Map<string, TSchema>): unknown {
  if (schema.$id && !refs.has(schema.$id)) refs.set(schema.$id, schema)
  switch (schema[Kind]) {
    case "Ref":
    case "This": {
      const target = schema.$ref ? refs.get(schema.$ref) : undefined
      return target ? walk(target as Schema, value, refs) : value
    }
    case "Boolean":
      return booleanForm(value) ?? value
    case "Union":
      return walkUnion(schema.anyOf ?? [], value, refs)
    case "Intersect":
      return (schema.allOf ?? []).reduce((v, member) => walk(member as Schema, v, refs), value)
    case "Array":
      if (Array.isArray(value) && schema.items) {
        for (const [i, item] of value.entries()) value[i] = walk(schema.items as Schema, item, refs)
      }
      return value
    case "Object":
    case "Record":
      if (isRecord(value)) walkMapping(schema, value, refs)
      return value
    default:
      return value
  }
}

function walkMapping(schema: Schema, value: Record<string, unknown>, refs: Map<string, TSchema>): void {
  const pattern = schema.patternProperties ? Object.values(schema.patternProperties)[0] : undefined
  const extra = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined
  for (const [key, item] of Object.entries(value)) {
    const child = schema.properties?.[key] ?? pattern ?? extra
    if (child) value[key] = walk(child as Schema, item, refs)
  }
}

/**
 * A union takes a boolean form as a boolean only when no member takes it as it is (a string where
 * strings are allowed stays a string); mappings and lists are walked by each member of their shape.
 */
function walkUnion(members: TSchema[], value: unknown, refs: Map<string, TSchema>): unknown {
  const kinds = new Set(members.map((m) => m[Kind] as string))
  if (typeof value === "string" || typeof value === "number") {
    if (!kinds.has("Boolean")) return value
    const takesAsIs =
      typeof value === "string" ? kinds.has("String") : kinds.has("Number") || kinds.has("Integer")
    return takesAsIs ? value : (booleanForm(value) ?? value)
  }
  const shape = Array.isArray(value) ? ["Array"] : isRecord(value) ? ["Object", "Record"] : []
  for (const member of members) {
    const kind = member[Kind] as string
    if (shape.includes(kind) || kind === "Ref" || kind === "This" || kind === "Union") {
      value = walk(member as Schema, value, refs)
    }
  }
  return value
}
