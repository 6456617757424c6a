/**
 * Toolset files as definitions. file-schema.ts checks their shape like the config file, so every
 * message names the file and the key path (`toolsets.yaml: toolsets.linux/host.tools[2].timeout:
 * expected a positive integer`); what a schema cannot say (unique tool names, templates that
 * parse, regular expressions that compile) is checked here after it, with the same message form.
 * HolmesGPT's keys that dupin does not act on are accepted and reported.
 */
import { BOOLEAN_FORMS, booleanForm } from "../config/booleans.ts"
import { assertValid, schemaCheck } from "../config/validate.ts"
import { ConfigError } from "../errors.ts"
import type { ToolParameterInit } from "../tool/parameter.ts"
import { CommandTemplate, type Placeholder, TemplateError } from "../tool/template.ts"
import { ConfigProblems } from "./config-problems.ts"
import {
  type ParameterBody,
  TOOL_IGNORED,
  TOOLSET_IGNORED,
  type ToolBody,
  type ToolsetBody,
  ToolsetFileSchema,
  ToolsetsMapSchema,
} from "./file-schema.ts"
import { parseOutputFilter } from "./output-filter.ts"
import type { ProgramKind } from "./program-text.ts"

export type PrerequisiteDefinition = { command: string; expectedOutput?: string } | { env: string[] }

export type ToolDefinition = {
  name: string
  description: string
  command: string
  parameters: Record<string, ToolParameterInit>
  /** Parameters whose value is a program text (`program: jq`), checked by that program's grammar. */
  programs?: Record<string, ProgramKind>
  timeout?: number
  requiresApproval: boolean
  /** `host_view: true`: the answer is about the host, so the tool needs the host's view. */
  hostView?: boolean
  /**
   * HolmesGPT's `additional_instructions`: a shell command the output is piped through after a
   * successful run (the tool's own, else its toolset's).
   */
  outputFilter?: string
  /**
   * The command's placeholders (CommandTemplate.placeholders), found when the file was checked:
   * present, the command passed every template check with these parameters, so building the tool
   * need not check it again (the binary's built-in definitions were checked by `bun run build`).
   */
  placeholders?: Placeholder[]
}

export type ToolsetDefinition = {
  name: string
  /** Where it came from, for messages. */
  fileName: string
  /** The keys the source gave (an override of only `enabled`/`config` is told apart by this). */
  keys: string[]
  description?: string
  enabled?: boolean
  llmInstructions?: string
  prerequisites: PrerequisiteDefinition[]
  tools: ToolDefinition[]
  config?: Record<string, unknown>
  docsUrl?: string
  tags?: string[]
  /**
   * Variables of dupin's environment its commands may read (`$NAME`): the toolset's `env:` and the
   * names its `prerequisites` require (HolmesGPT's `get_environment_variables`).
   */
  env: string[]
  /** HolmesGPT keys that were accepted but are not used, as key paths. */
  ignored: string[]
}

/** OpenAI's rule for function names; every provider accepts it. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/
const checkFile = schemaCheck(ToolsetFileSchema)
const checkMap = schemaCheck(ToolsetsMapSchema)

/** Validates a whole toolset file's content (already parsed from YAML). */
export function parseToolsetDocument(value: unknown, fileName: string): ToolsetDefinition[] {
  const root = withoutNulls(value)
  assertValid(checkFile, root, { file: fileName })
  return definitions(root.toolsets ?? {}, (value as { toolsets?: unknown }).toolsets, fileName, "toolsets")
}

/** Validates one `toolsets:` map. `base` is the key path of the map itself. */
export function parseToolsetsMap(value: unknown, fileName: string, base = "toolsets"): ToolsetDefinition[] {
  const map = withoutNulls(value)
  assertValid(checkMap, map, { file: fileName, base })
  return definitions(map, value, fileName, base)
}

/** `raw` is the map as written: its keys, nulls included, tell a definition from an override. */
function definitions(
  map: Record<string, ToolsetBody>,
  raw: unknown,
  fileName: string,
  base: string,
): ToolsetDefinition[] {
  // Every toolset and tool is checked, so a file's problems are all named in one run.
  const problems = new ConfigProblems()
  const parsed = Object.entries(map).flatMap(([name, body]) => {
    const definition = problems.attempt(() =>
      toolsetDefinition(name, body, fileName, `${base}.${name}`, problems),
    )
    return definition
      ? [{ ...definition, keys: Object.keys((raw as Record<string, object>)[name] ?? {}) }]
      : []
  })
  problems.throwIfAny()
  return parsed
}

/** Checks with the same message form as the schema's, for what a schema cannot say. */
function fail(fileName: string, path: string, expected: string): never {
  throw new ConfigError(`${fileName}: ${path}: ${expected}`, fileName)
}

function toolsetDefinition(
  name: string,
  body: ToolsetBody,
  fileName: string,
  path: string,
  problems: ConfigProblems,
): ToolsetDefinition {
  const ignored = TOOLSET_IGNORED.filter((k) => k in body).map((k) => `${path}.${k}`)
  const indexed = (body.tools ?? []).flatMap((tool, i) => {
    const at = `${path}.tools[${i}]`
    ignored.push(...TOOL_IGNORED.filter((k) => k in tool).map((k) => `${at}.${k}`))
    const definition = problems.attempt(() =>
      toolDefinition(tool, fileName, at, body.additional_instructions),
    )
    return definition ? [{ index: i, definition }] : []
  })
  const seen = new Map<string, number>()
  for (const { index: i, definition: tool } of indexed) {
    const first = seen.get(tool.name)
    if (first !== undefined)
      fail(fileName, `${path}.tools[${i}].name`, `duplicate tool name "${tool.name}" (also tools[${first}])`)
    seen.set(tool.name, i)
  }
  const tools = indexed.map((t) => t.definition)
  return {
    name,
    fileName,
    keys: Object.keys(body),
    description: body.description,
    enabled: body.enabled,
    llmInstructions: body.llm_instructions,
    prerequisites: (body.prerequisites ?? []).map((p, i) => {
      const at = `${path}.prerequisites[${i}]`
      if (p.env !== undefined) {
        if (p.command !== undefined || p.expected_output !== undefined)
          fail(fileName, at, "expected `command` or `env`, not both")
        return { env: p.env }
      }
      if (p.command === undefined) fail(fileName, at, "expected `command` or `env`")
      return p.expected_output === undefined
        ? { command: p.command }
        : { command: p.command, expectedOutput: p.expected_output }
    }),
    tools,
    config: body.config,
    docsUrl: body.docs_url,
    tags: body.tags,
    env: [...new Set([...(body.env ?? []), ...(body.prerequisites ?? []).flatMap((p) => p.env ?? [])])],
    ignored,
  }
}

function toolDefinition(
  body: ToolBody,
  fileName: string,
  path: string,
  toolsetFilter: string | undefined,
): ToolDefinition {
  if (!TOOL_NAME.test(body.name))
    fail(fileName, `${path}.name`, `"${body.name}" must match ${TOOL_NAME.source}`)
  if (body.command !== undefined && body.script !== undefined)
    fail(fileName, path, "give `command` or `script`, not both")
  const key = body.script !== undefined ? "script" : "command"
  const command = body.script ?? body.command
  if (command === undefined) fail(fileName, `${path}.command`, "required, expected a string")
  const parameters: Record<string, ToolParameterInit> = {}
  const programs: Record<string, ProgramKind> = {}
  for (const [param, spec] of Object.entries(body.parameters ?? {})) {
    const at = `${path}.parameters.${param}`
    if (!IDENT.test(param))
      fail(fileName, at, "a parameter name must be a letter or _ then letters, digits or _")
    parameters[param] = parameterInit(spec, fileName, at)
    if (spec.program !== undefined) {
      if ((spec.type ?? "string") !== "string")
        fail(fileName, `${at}.program`, "only a string parameter holds a program")
      programs[param] = spec.program
    }
  }
  let template: CommandTemplate
  try {
    // With the declared types, a non-integer parameter where bash evaluates its value (arithmetic,
    // subscripts, names) is a load error rather than a refusal at every call.
    template = new CommandTemplate(command, {
      parameterType: (name) => parameters[name]?.type,
      parameterProgram: (name) => programs[name],
    })
  } catch (error) {
    if (error instanceof TemplateError)
      fail(fileName, `${path}.${key}`, `${error.message} (tool ${body.name})`)
    throw error
  }
  checkPlaceholderTypos(template, parameters, fileName, `${path}.${key}`)
  const filter = body.additional_instructions ?? toolsetFilter
  if (filter?.trim()) {
    const parsed = parseOutputFilter(filter)
    if ("refused" in parsed) {
      const key = body.additional_instructions !== undefined ? `${path}.additional_instructions` : path
      fail(
        fileName,
        key,
        `output filter (additional_instructions) \`${filter.trim()}\` refused: ${parsed.refused} ` +
          `(a filter runs under run_bash_command's rules: one pipeline of plain commands) (tool ${body.name})`,
      )
    }
  }
  return {
    name: body.name,
    description: body.description,
    command,
    parameters,
    programs,
    timeout: body.timeout,
    requiresApproval: body.requires_approval ?? false,
    ...(body.host_view ? { hostView: true } : {}),
    ...(filter?.trim() ? { outputFilter: filter } : {}),
    placeholders: template.placeholders(),
  }
}

/**
 * An undeclared placeholder would be inferred as a new required string, so `{{ servce }}` with
 * `service` declared would silently ask the model for a `servce`. Declared-but-unused parameters
 * next to undeclared placeholders are that typo (or a stale declaration): refuse, naming both.
 */
function checkPlaceholderTypos(
  template: CommandTemplate,
  parameters: Record<string, ToolParameterInit>,
  fileName: string,
  path: string,
): void {
  const used = template.placeholders().map((p) => p.name)
  const undeclared = used.filter((name) => !(name in parameters))
  const unused = Object.keys(parameters).filter((name) => !used.includes(name))
  if (undeclared.length === 0 || unused.length === 0) return
  const quote = (names: string[]) => names.map((n) => `"${n}"`).join(", ")
  fail(
    fileName,
    path,
    `uses undeclared ${quote(undeclared)} while declared ${quote(unused)} ${unused.length === 1 ? "is" : "are"} ` +
      "never used; fix the placeholder's spelling or declare every parameter the command uses",
  )
}

function parameterInit(body: ParameterBody, fileName: string, path: string): ToolParameterInit {
  const init: ToolParameterInit = { type: body.type ?? "string" }
  if (body.description !== undefined) init.description = body.description
  if (body.required !== undefined) init.required = body.required
  if (body.default !== undefined) init.default = body.default
  // A boolean's default takes the config's boolean forms (`default: yes`, CONTRACT §3): left a
  // string, it would fail the parameter's own check at every call that omits the value.
  if (init.type === "boolean" && body.default !== undefined) {
    const value = booleanForm(body.default) ?? (typeof body.default === "boolean" ? body.default : undefined)
    if (value === undefined) fail(fileName, `${path}.default`, `expected a boolean (${BOOLEAN_FORMS})`)
    init.default = value
  }
  if (body.enum !== undefined) init.enum = body.enum
  if (body.pattern !== undefined) {
    try {
      new RegExp(body.pattern, "u")
    } catch {
      fail(fileName, `${path}.pattern`, "not a valid regular expression")
    }
    init.pattern = body.pattern
  }
  if (body.allow_leading_dash !== undefined) init.allowLeadingDash = body.allow_leading_dash
  if (body.items !== undefined) init.items = parameterInit(body.items, fileName, `${path}.items`)
  if (body.properties !== undefined) {
    init.properties = Object.fromEntries(
      Object.entries(body.properties).map(([k, p]) => [
        k,
        parameterInit(p, fileName, `${path}.properties.${k}`),
      ]),
    )
  }
  return init
}

/**
 * `key: null` means the key is absent, as HolmesGPT's files use it. Not applied inside `config`
 * (the toolset's own settings, passed on as written) nor to list items.
 */
function withoutNulls(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value))
    return value.map((item) => (item !== null && typeof item === "object" ? withoutNulls(item) : item))
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, k === "config" ? v : withoutNulls(v)]),
  )
}
