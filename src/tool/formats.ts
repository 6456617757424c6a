/**
 * String formats (`Type.String({ format: "uri" })`) for every TypeBox schema dupin compiles: tool
 * parameters and toolset config classes. TypeBox knows no format by itself, so without this each
 * `format` fails its check ("Unknown format 'uri'"). The checkers are the maintained ones of
 * `@cfworker/json-schema` (also dupin's structured-answer validator), except `url`, which is any
 * absolute http(s)/ftp URL the WHATWG parser accepts (private hosts included: a status page on
 * 10.0.0.5 is a fine config value).
 *
 * A schema naming a format dupin does not know is a load error naming the toolset, the tool (for
 * parameters), the schema path and the format, instead of a toolset that is silently `failed`.
 */
import { format as standard } from "@cfworker/json-schema"
import { FormatRegistry, type TSchema } from "@sinclair/typebox"
import { ConfigError } from "../errors.ts"

const URL_SCHEMES = new Set(["http:", "https:", "ftp:"])

function isUrl(value: string): boolean {
  const parsed = URL.parse(value)
  return parsed !== null && URL_SCHEMES.has(parsed.protocol) && parsed.hostname !== ""
}

/** The library's checker for a standard format (its map is typed loosely; every name here exists). */
function std(name: string): (value: string) => boolean {
  const check = standard[name]
  if (!check) throw new Error(`@cfworker/json-schema has no format ${name}`)
  return check
}

const CHECKERS: Record<string, (value: string) => boolean> = {
  uri: std("uri"),
  "uri-reference": std("uri-reference"),
  url: isUrl,
  email: std("email"),
  hostname: std("hostname"),
  ipv4: std("ipv4"),
  ipv6: std("ipv6"),
  "date-time": std("date-time"),
  date: std("date"),
  time: std("time"),
  duration: std("duration"),
  uuid: std("uuid"),
  regex: std("regex"),
}

/** The formats a schema may name, sorted. */
export const KNOWN_FORMATS: readonly string[] = Object.keys(CHECKERS).sort()

/** Registers the formats with TypeBox; idempotent. Runs when this module is first imported. */
export function registerFormats(): void {
  for (const [name, check] of Object.entries(CHECKERS)) {
    if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
  }
}
registerFormats()

/** Keywords whose values are data, not subschemas: a `format` key inside them is not a format. */
const DATA_KEYWORDS = new Set(["default", "examples", "const", "enum", "description", "title"])
/** Keywords whose values map names (which may be any word, `format` too) to subschemas. */
const NAMED_SCHEMAS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"])

/** Each `format` the schema names that no checker handles, with its path in the schema. */
export function unknownFormats(schema: unknown, path = ""): { path: string; format: string }[] {
  if (schema === null || typeof schema !== "object") return []
  if (Array.isArray(schema)) return schema.flatMap((item, i) => unknownFormats(item, `${path}/${i}`))
  const found: { path: string; format: string }[] = []
  for (const [key, value] of Object.entries(schema)) {
    if (key === "format" && typeof value === "string") {
      // Only strings are checked against a format (TypeBox, JSON Schema): OpenAPI's int64 or
      // double on a number only annotates, and a schema using it compiles and checks fine.
      if (!FormatRegistry.Has(value) && takesStrings(schema)) found.push({ path: path || "/", format: value })
    } else if (NAMED_SCHEMAS.has(key) && value !== null && typeof value === "object") {
      for (const [name, sub] of Object.entries(value))
        found.push(...unknownFormats(sub, `${path}/${key}/${name}`))
    } else if (!DATA_KEYWORDS.has(key)) {
      found.push(...unknownFormats(value, `${path}/${key}`))
    }
  }
  return found
}

/** Whether a schema node may hold a string (no `type`, `string`, or a list with it). */
function takesStrings(node: object): boolean {
  const type = (node as { type?: unknown }).type
  if (type === undefined) return true
  return Array.isArray(type) ? type.includes("string") : type === "string"
}

/** The message for a schema of `owner` (e.g. "toolset statuspage") that names unknown formats. */
export function unknownFormatMessage(owner: string, schema: TSchema): string | undefined {
  const unknown = unknownFormats(schema)
  if (unknown.length === 0) return undefined
  const list = unknown.map((u) => `'${u.format}' at ${u.path}`).join(", ")
  return `${owner}: unknown string format ${list}. Known formats: ${KNOWN_FORMATS.join(", ")}.`
}

type FormatOwner = {
  name: string
  configClasses: readonly TSchema[]
  tools: readonly { name: string; inputSchema(): TSchema }[]
}

/** Throws a ConfigError when a toolset's config classes or a tool's parameters name an unknown format. */
export function assertKnownFormats(toolset: FormatOwner): void {
  for (const schema of toolset.configClasses) {
    const message = unknownFormatMessage(`toolset ${toolset.name}: config schema`, schema)
    if (message) throw new ConfigError(message)
  }
  for (const tool of toolset.tools) {
    const message = unknownFormatMessage(
      `toolset ${toolset.name}: tool ${tool.name}: parameters`,
      tool.inputSchema(),
    )
    if (message) throw new ConfigError(message)
  }
}
