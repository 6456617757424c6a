/**
 * One case folder in HolmesGPT's layout: `test_case.yaml`, mock `.txt` files, and optionally
 * `toolsets.yaml` and `conversation_history.json`. Parsing is strict: a key we do not know, a
 * missing `expected_output` or a value of the wrong form is a fixture error naming file and key,
 * so a typo never silently turns a case into a different one.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs"
import { basename, join, resolve } from "node:path"
import { parseDocument } from "yaml"
import { closestKey } from "../config/did-you-mean.ts"
import { ConfigError, errorMessage } from "../errors.ts"
import { isRecord } from "../is-record.ts"
import type { ChatMessage } from "../llm/types.ts"
import { type Mock, readMockFile } from "./mock-file.ts"

export type MockPolicy = "always_mock" | "never_mock" | "inherit"

export type EvalCase = {
  /** The folder name, plus `[n]` when `user_prompt` lists several questions. */
  id: string
  dir: string
  userPrompt: string
  expectedOutput: string[]
  tags: string[]
  /** `toolsets.<name>.enabled` from the case; other toolset settings do not matter with mocks. */
  toolsets: Record<string, boolean>
  conversationHistory: ChatMessage[] | undefined
  /** Files attached to the question as context, resolved inside the case folder. */
  includeFiles: string[]
  /** Why the case is not run, when it is not. */
  skip: string | undefined
  mocks: Mock[]
  clusterName: string | undefined
  /** HolmesGPT's `mocked_date`: the time the prompt says it is. */
  now: Date | undefined
}

export const CASE_FILE = "test_case.yaml"

/** Keys that change what we run or report. */
const USED = new Set([
  "user_prompt",
  "expected_output",
  "tags",
  "toolsets",
  "conversation_history",
  "include_files",
  "evaluation",
  "skip",
  "skip_reason",
  "mock_policy",
  "description",
  "cluster_name",
  "mocked_date",
])

/**
 * HolmesGPT keys accepted so its fixtures load unchanged, with no effect here: they set up or
 * tear down a live cluster, or tune HolmesGPT's own runner. dupin evals only ever serve mocks.
 */
const HOLMES_ONLY = new Set([
  "before_test",
  "after_test",
  "port_forwards",
  "setup_timeout",
  "test_type",
  "generate_mocks",
  "include_tool_calls",
  "mock_overrides",
  "test_env_vars",
  "allow_toolset_failures",
  "runbooks",
])

/** The cases of one folder (one per question when `user_prompt` is a list). */
export function readCase(dir: string): EvalCase[] {
  const file = join(dir, CASE_FILE)
  const raw = readYaml(file)
  const where = (key: string) => `${file}: ${key}`
  const fail = (key: string, message: string): never => {
    throw new ConfigError(`${where(key)}: ${message}`, file)
  }
  for (const key of Object.keys(raw)) {
    if (USED.has(key) || HOLMES_ONLY.has(key)) continue
    const guess = closestKey(key, [...USED, ...HOLMES_ONLY])
    fail(
      key,
      `unknown key${guess ? `: did you mean ${guess}?` : ""} (known: ${[...USED].join(", ")}, and HolmesGPT's set-up keys)`,
    )
  }
  if (raw.expected_output === undefined) fail("expected_output", "missing: what a correct answer must say")
  const expected = stringList(raw.expected_output, "expected_output", fail)
  if (expected.length === 0) fail("expected_output", "must name at least one element of a correct answer")
  const prompts = stringList(raw.user_prompt, "user_prompt", fail)
  if (prompts.length === 0) fail("user_prompt", "missing: the question to ask")
  const tags = raw.tags === undefined || raw.tags === null ? [] : raw.tags
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === "string"))
    fail("tags", "must be a list of strings")
  const policy = raw.mock_policy ?? "inherit"
  if (policy !== "always_mock" && policy !== "never_mock" && policy !== "inherit")
    fail("mock_policy", "must be always_mock, never_mock or inherit")
  if (raw.skip !== undefined && typeof raw.skip !== "boolean") fail("skip", "must be true or false")
  if (raw.evaluation !== undefined && raw.evaluation !== null && !isRecord(raw.evaluation))
    fail("evaluation", "must be a mapping (e.g. correctness: 1)")
  for (const key of ["skip_reason", "description", "cluster_name"]) {
    if (raw[key] !== undefined && raw[key] !== null && typeof raw[key] !== "string")
      fail(key, "must be a string")
  }
  const now = mockedDate(raw.mocked_date, fail)
  const includeFiles = (
    raw.include_files === undefined ? [] : stringList(raw.include_files, "include_files", fail)
  ).map((name) => {
    const path = resolve(dir, name)
    if (!existsSync(path)) fail("include_files", `${name} does not exist in ${dir}`)
    return path
  })
  const toolsets = {
    ...toolsetSwitches(readToolsetsFile(dir), join(dir, "toolsets.yaml")),
    ...toolsetSwitches(raw.toolsets, where("toolsets")),
  }
  const history = conversationHistory(raw.conversation_history, dir, fail)
  const skip =
    raw.skip === true
      ? ((raw.skip_reason as string | undefined) ?? "skip: true")
      : policy === "never_mock"
        ? "mock_policy never_mock needs live tools; dupin eval serves mocks only"
        : undefined
  const mocks = readdirSync(dir)
    .filter((name) => name.endsWith(".txt"))
    .sort()
    .map((name) => join(dir, name))
    .filter((path) => !includeFiles.includes(path))
    .flatMap((path) => readMockFile(path) ?? [])
  const name = basename(dir)
  return prompts.map((userPrompt, n) => ({
    id: prompts.length > 1 ? `${name}[${n + 1}]` : name,
    dir,
    userPrompt,
    expectedOutput: expected,
    tags: tags as string[],
    toolsets,
    conversationHistory: history,
    includeFiles,
    skip,
    mocks,
    clusterName: (raw.cluster_name as string | undefined) ?? undefined,
    now,
  }))
}

function readYaml(file: string): Record<string, unknown> {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    throw new ConfigError(`${file}: cannot read: ${errorMessage(error)}`, file)
  }
  const doc = parseDocument(text, { uniqueKeys: true })
  const problem = doc.errors[0]
  if (problem) {
    const at = problem.linePos?.[0] ? `:${problem.linePos[0].line}` : ""
    throw new ConfigError(`${file}${at}: invalid YAML: ${problem.message.split("\n")[0]}`, file)
  }
  const value: unknown = doc.toJS() ?? {}
  if (!isRecord(value)) throw new ConfigError(`${file}: the top level must be a mapping`, file)
  return value
}

type Fail = (key: string, message: string) => never

/** A string, or a list of strings (HolmesGPT accepts both for prompts and expectations). */
function stringList(value: unknown, key: string, fail: Fail): string[] {
  if (typeof value === "string") return value.trim() ? [value] : []
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[]
  return fail(key, "must be a string or a list of strings")
}

function mockedDate(value: unknown, fail: Fail): Date | undefined {
  if (value === undefined || value === null) return undefined
  const date = new Date(String(value))
  if (Number.isNaN(date.getTime())) fail("mocked_date", "must be an ISO 8601 date-time")
  return date
}

function readToolsetsFile(dir: string): unknown {
  const file = join(dir, "toolsets.yaml")
  if (!existsSync(file)) return undefined
  const raw = readYaml(file)
  for (const key of Object.keys(raw)) {
    // HolmesGPT's toolsets.yaml is a config file fragment; only its toolsets matter here.
    if (key !== "toolsets" && key !== "mcp_servers")
      throw new ConfigError(`${file}: ${key}: unknown key (expected toolsets)`, file)
  }
  return raw.toolsets
}

/** `{name: {enabled: bool, ...}}` → `{name: bool}`; a toolset named without `enabled` is on. */
function toolsetSwitches(value: unknown, where: string): Record<string, boolean> {
  if (value === undefined || value === null) return {}
  if (!isRecord(value)) throw new ConfigError(`${where}: must be a mapping of toolset names`, where)
  const switches: Record<string, boolean> = {}
  for (const [name, entry] of Object.entries(value)) {
    if (entry !== null && !isRecord(entry))
      throw new ConfigError(`${where}.${name}: must be a mapping (enabled: true|false)`, where)
    const enabled = entry?.enabled ?? true
    if (typeof enabled !== "boolean")
      throw new ConfigError(`${where}.${name}.enabled: must be true or false`, where)
    switches[name] = enabled
  }
  return switches
}

const ROLES = new Set(["system", "user", "assistant", "tool"])

function conversationHistory(value: unknown, dir: string, fail: Fail): ChatMessage[] | undefined {
  const file = join(dir, "conversation_history.json")
  let history = value
  if (history === undefined && existsSync(file)) {
    try {
      history = JSON.parse(readFileSync(file, "utf8"))
    } catch (error) {
      throw new ConfigError(`${file}: not valid JSON: ${errorMessage(error)}`, file)
    }
  }
  if (history === undefined || history === null) return undefined
  if (!Array.isArray(history)) return fail("conversation_history", "must be a list of chat messages")
  for (const [n, message] of history.entries()) {
    if (!isRecord(message) || typeof message.role !== "string" || !ROLES.has(message.role))
      fail(`conversation_history[${n}]`, "must be a message with role system, user, assistant or tool")
  }
  return history as ChatMessage[]
}
