import { readFileSync } from "node:fs"
import { parseDocument } from "yaml"
import { ConfigError, errorMessage } from "../errors.ts"
import { type ConfigFile, ConfigFileSchema } from "./schema.ts"
import { assertValid, schemaCheck } from "./validate.ts"

const check = schemaCheck(ConfigFileSchema)

/** Reads and validates a config file. Every error names the file, the key path and the expected form. */
export function readConfigFile(path: string): ConfigFile {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${errorMessage(error)}`, path)
  }
  return parseConfigText(text, path)
}

export function parseConfigText(text: string, path: string): ConfigFile {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true })
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!
    const at = e.linePos?.[0] ? `:${e.linePos[0].line}:${e.linePos[0].col}` : ""
    throw new ConfigError(`${path}${at}: invalid YAML: ${e.message.split("\n")[0]}`, path)
  }
  const value: unknown = doc.toJS() ?? {}
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(
      `${path}: the top level must be a mapping of keys (model, modelList, toolsets...).`,
      path,
    )
  }
  assertValid(check, value, { file: path })
  return value
}
