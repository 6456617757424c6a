/**
 * A config file that fails its own schema is reported with its toolsets' problems too (the
 * `toolsets:` map, code toolsets' `config:`, `mcp_servers:`, the custom toolset files), so one run
 * names every typo (issue 12 item 11) instead of the toolsets' after the file's are fixed. Checked
 * only when those keys have the shape the schema wants; nothing is started or connected.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { parse as parseYaml } from "yaml"
import type { Env } from "../config/env.ts"
import { ConfigError } from "../errors.ts"
import { isRecord } from "../is-record.ts"
import { assembleToolsets } from "../toolset/assemble.ts"
import { ConfigProblems } from "../toolset/config-problems.ts"

export function withToolsetProblems(error: ConfigError, path: string, env: Env): ConfigError {
  let raw: unknown
  try {
    raw = parseYaml(readFileSync(path, "utf8"))
  } catch {
    return error
  }
  if (!isRecord(raw)) return error
  const { toolsets, custom_toolsets: custom, mcp_servers: servers } = raw
  if (toolsets === undefined && custom === undefined && servers === undefined) return error
  const shaped =
    (toolsets === undefined || toolsets === null || isRecord(toolsets)) &&
    (custom === undefined || custom === null || isStringList(custom)) &&
    (servers === undefined || servers === null || isRecord(servers))
  if (!shaped) return error
  const problems = new ConfigProblems()
  problems.add(error)
  problems.attempt(() =>
    assembleToolsets({
      config: (toolsets as Record<string, unknown> | null) ?? {},
      configFileName: resolve(path),
      customFiles: (custom as string[] | null) ?? [],
      mcpServers: (servers as Record<string, unknown> | null) ?? undefined,
      additional: [],
      context: { env, runbooks: undefined, protectedPaths: [] },
    }),
  )
  try {
    problems.throwIfAny()
  } catch (all) {
    if (all instanceof ConfigError) return all
    throw all
  }
  return error
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string")
}
