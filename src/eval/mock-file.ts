/**
 * HolmesGPT's three-part mock files: line 1 says which call the file answers
 * (`{toolset_name, tool_name, match_params}`), line 2 is the tool's structured result without its
 * data, and every line after is the raw output the tool printed. A case folder holds any number.
 */

import { readFileSync } from "node:fs"
import { closestKey } from "../config/did-you-mean.ts"
import { ConfigError, errorMessage } from "../errors.ts"
import { isRecord } from "../is-record.ts"
import { ToolResultStatus } from "../tool/result.ts"

export type Mock = {
  /** The file, for error texts and the report. */
  file: string
  toolsetName: string | undefined
  toolName: string
  /** Keys and values a call must carry; undefined matches any call of the tool. */
  matchParams: Record<string, unknown> | undefined
  status: ToolResultStatus
  error: string | null
  returnCode: number | null
  data: string | null
}

/**
 * `params` is an early HolmesGPT header key, still in one of its fixtures; HolmesGPT ignores it
 * (such a mock answers any call of its tool), and so do we, so that folder loads unchanged.
 */
const HEADER_KEYS = new Set(["toolset_name", "tool_name", "match_params", "params"])
const STATUSES = new Set<string>(Object.values(ToolResultStatus))

/**
 * The mock in `file`, or undefined when the file is not a mock at all (a `.txt` note whose first
 * line is not a JSON object, which HolmesGPT skips too). A file that starts like a mock but is
 * broken is a fixture error naming the file, the line and the key.
 */
export function readMockFile(file: string): Mock | undefined {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    throw new ConfigError(`${file}: cannot read mock file: ${errorMessage(error)}`, file)
  }
  return parseMock(text, file)
}

export function parseMock(text: string, file: string): Mock | undefined {
  const lines = text.split("\n")
  const first = (lines[0] ?? "").trim()
  if (!first.startsWith("{")) return undefined
  const fail = (message: string): never => {
    throw new ConfigError(`${file}: ${message}`, file)
  }
  const header = jsonObject(first, `${file}: line 1`)
  for (const key of Object.keys(header)) {
    if (HEADER_KEYS.has(key)) continue
    const guess = closestKey(key, ["toolset_name", "tool_name", "match_params"])
    fail(
      `line 1: unknown key "${key}"${guess ? `: did you mean ${guess}?` : ""} (expected toolset_name, tool_name, match_params)`,
    )
  }
  const toolName = header.tool_name
  if (typeof toolName !== "string" || !toolName) fail("line 1: tool_name must be a non-empty string")
  if (header.toolset_name !== undefined && typeof header.toolset_name !== "string")
    fail("line 1: toolset_name must be a string")
  const match = header.match_params
  if (match !== undefined && match !== null && !isRecord(match))
    fail("line 1: match_params must be an object (or null to match any call)")

  const second = (lines[1] ?? "").trim()
  if (!second) fail("line 2: missing the result JSON (HolmesGPT's three-part format: header, result, output)")
  const result = jsonObject(second, `${file}: line 2`)
  const status = result.status
  if (typeof status !== "string" || !STATUSES.has(status))
    fail(`line 2: status must be one of ${[...STATUSES].join(", ")}`)
  if (result.error !== undefined && result.error !== null && typeof result.error !== "string")
    fail("line 2: error must be a string or null")
  const code = result.return_code
  if (code !== undefined && code !== null && !Number.isInteger(code))
    fail("line 2: return_code must be an integer or null")
  const rest = lines.slice(2).join("\n")
  // As HolmesGPT reads it: raw output after line 2 is the data; without any, line 2's own `data`.
  const inline = typeof result.data === "string" ? result.data : null
  return {
    file,
    toolsetName: header.toolset_name as string | undefined,
    toolName: toolName as string,
    matchParams: isRecord(match) ? match : undefined,
    status: status as ToolResultStatus,
    error: (result.error as string | null | undefined) ?? null,
    returnCode: (code as number | null | undefined) ?? null,
    data: rest !== "" ? rest : inline,
  }
}

function jsonObject(text: string, where: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new ConfigError(`${where}: not valid JSON: ${errorMessage(error)}`, where)
  }
  if (!isRecord(value)) throw new ConfigError(`${where}: must be a JSON object`, where)
  return value
}

/** Whether `mock` answers a call of `toolName` with `params`: same tool, every named param equal. */
export function mockMatches(mock: Mock, toolName: string, params: Record<string, unknown>): boolean {
  if (mock.toolName !== toolName) return false
  if (!mock.matchParams) return true
  return Object.entries(mock.matchParams).every(
    ([key, value]) => key in params && Bun.deepEquals(params[key], value, true),
  )
}
