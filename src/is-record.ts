/**
 * A parsed JSON or YAML value that is a mapping: an object, not null and not an array. Every
 * boundary that reads untrusted structure (config files, HTTP bodies, provider replies, MCP
 * schemas, mock files) narrows with this one check, so "mapping" means the same thing everywhere.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
