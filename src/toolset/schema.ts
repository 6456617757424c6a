/**
 * The YAML toolset format (CONTRACT §6), validated strictly by hand so every message names the
 * file and the exact key path: `toolsets.yaml: toolsets.linux/host.tools[2].timeout: expected a
 * positive integer`. HolmesGPT's keys that dupin does not act on are accepted and reported.
 */
import { ConfigError } from "../errors.ts"
import type { ToolParameterInit, ToolParameterType } from "../tool/parameter.ts"
import { CommandTemplate, TemplateError } from "../tool/template.ts"
import { PROGRAM_KINDS, type ProgramKind } from "./program-text.ts"

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
  /** HolmesGPT's `additional_instructions`: appended to the description the model sees. */
  additionalInstructions?: string
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
  /** HolmesGPT keys that were accepted but are not used, as key paths. */
  ignored: string[]
}

/** OpenAI's rule for function names; every provider accepts it. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/
const TOOLSET_KEYS = [
  "description",
  "enabled",
  "llm_instructions",
  "prerequisites",
  "tools",
  "config",
  "docs_url",
  "tags",
]
const TOOLSET_IGNORED = ["icon_url", "installation_instructions", "transformers"]
const TOOL_KEYS = ["name", "description", "command", "script", "parameters", "timeout", "requires_approval"]
const TOOL_IGNORED = ["user_description", "transformers"]
const PARAM_KEYS = [
  "type",
  "description",
  "required",
  "default",
  "enum",
  "pattern",
  "allow_leading_dash",
  "items",
  "properties",
  "program",
]
const PARAM_TYPES: ToolParameterType[] = ["string", "integer", "number", "boolean", "array", "object"]

/** Validates one `toolsets:` map. `base` is the key path of the map itself. */
export function parseToolsetsMap(value: unknown, fileName: string, base = "toolsets"): ToolsetDefinition[] {
  const v = new Validator(fileName)
  const map = v.object(value, base)
  return Object.entries(map).map(([name, body]) => parseToolset(v, name, body, `${base}.${name}`))
}

function parseToolset(v: Validator, name: string, value: unknown, path: string): ToolsetDefinition {
  const body = v.object(value, path)
  v.keys(body, path, [...TOOLSET_KEYS, ...TOOLSET_IGNORED, "additional_instructions"])
  const ignored = TOOLSET_IGNORED.filter((k) => k in body).map((k) => `${path}.${k}`)
  const tools = v
    .list(body.tools ?? [], `${path}.tools`)
    .map((t, i) => parseTool(v, t, `${path}.tools[${i}]`, ignored))
  const seen = new Map<string, number>()
  for (const [i, tool] of tools.entries()) {
    const first = seen.get(tool.name)
    if (first !== undefined)
      v.fail(`${path}.tools[${i}].name`, `duplicate tool name "${tool.name}" (also tools[${first}])`)
    seen.set(tool.name, i)
  }
  return {
    name,
    fileName: v.fileName,
    keys: Object.keys(body),
    description: v.optionalString(body.description, `${path}.description`),
    enabled: v.optionalBoolean(body.enabled, `${path}.enabled`),
    llmInstructions: v.optionalString(
      body.llm_instructions ?? body.additional_instructions,
      `${path}.llm_instructions`,
    ),
    prerequisites: v
      .list(body.prerequisites ?? [], `${path}.prerequisites`)
      .map((p, i) => parsePrerequisite(v, p, `${path}.prerequisites[${i}]`)),
    tools,
    config:
      body.config === undefined || body.config === null ? undefined : v.object(body.config, `${path}.config`),
    docsUrl: v.optionalString(body.docs_url, `${path}.docs_url`),
    tags:
      body.tags === undefined
        ? undefined
        : v.list(body.tags, `${path}.tags`).map((t, i) => v.string(t, `${path}.tags[${i}]`)),
    ignored,
  }
}

function parsePrerequisite(v: Validator, value: unknown, path: string): PrerequisiteDefinition {
  const body = v.object(value, path)
  if ("env" in body) {
    v.keys(body, path, ["env"])
    return { env: v.list(body.env, `${path}.env`).map((e, i) => v.string(e, `${path}.env[${i}]`)) }
  }
  v.keys(body, path, ["command", "expected_output"])
  if (body.command === undefined) v.fail(path, "expected `command` or `env`")
  const command = v.string(body.command, `${path}.command`)
  const expectedOutput = v.optionalString(body.expected_output, `${path}.expected_output`)
  return expectedOutput === undefined ? { command } : { command, expectedOutput }
}

function parseTool(v: Validator, value: unknown, path: string, ignored: string[]): ToolDefinition {
  const body = v.object(value, path)
  v.keys(body, path, [...TOOL_KEYS, ...TOOL_IGNORED, "additional_instructions"])
  ignored.push(...TOOL_IGNORED.filter((k) => k in body).map((k) => `${path}.${k}`))
  const name = v.string(body.name, `${path}.name`)
  if (!TOOL_NAME.test(name)) v.fail(`${path}.name`, `"${name}" must match ${TOOL_NAME.source}`)
  if (body.command !== undefined && body.script !== undefined)
    v.fail(path, "give `command` or `script`, not both")
  const key = body.script !== undefined ? "script" : "command"
  const command = v.string(body[key], `${path}.${key}`)
  let timeout: number | undefined
  if (body.timeout !== undefined) {
    if (!Number.isInteger(body.timeout) || (body.timeout as number) <= 0)
      v.fail(`${path}.timeout`, "expected a positive integer")
    timeout = body.timeout as number
  }
  const parameters: Record<string, ToolParameterInit> = {}
  const programs: Record<string, ProgramKind> = {}
  for (const [param, spec] of Object.entries(v.object(body.parameters ?? {}, `${path}.parameters`))) {
    if (!IDENT.test(param))
      v.fail(
        `${path}.parameters.${param}`,
        "a parameter name must be a letter or _ then letters, digits or _",
      )
    parameters[param] = parseParameter(v, spec, `${path}.parameters.${param}`)
    const program = parseProgram(v, spec, `${path}.parameters.${param}`)
    if (program) programs[param] = program
  }
  try {
    // With the declared types, a non-integer parameter where bash evaluates its value (arithmetic,
    // subscripts, names) is a load error rather than a refusal at every call.
    new CommandTemplate(command, { parameterType: (name) => parameters[name]?.type })
  } catch (error) {
    if (error instanceof TemplateError) v.fail(`${path}.${key}`, error.message)
    throw error
  }
  return {
    name,
    description: v.string(body.description, `${path}.description`),
    command,
    parameters,
    programs,
    timeout,
    requiresApproval: v.optionalBoolean(body.requires_approval, `${path}.requires_approval`) ?? false,
    additionalInstructions: v.optionalString(body.additional_instructions, `${path}.additional_instructions`),
  }
}

function parseParameter(v: Validator, value: unknown, path: string): ToolParameterInit {
  const body = v.object(value, path)
  v.keys(body, path, PARAM_KEYS)
  const type = (body.type ?? "string") as ToolParameterType
  if (!PARAM_TYPES.includes(type)) v.fail(`${path}.type`, `expected one of ${PARAM_TYPES.join(", ")}`)
  const init: ToolParameterInit = { type }
  const description = v.optionalString(body.description, `${path}.description`)
  if (description !== undefined) init.description = description
  const required = v.optionalBoolean(body.required, `${path}.required`)
  if (required !== undefined) init.required = required
  if (body.default !== undefined && body.default !== null) init.default = body.default
  if (body.enum !== undefined) {
    init.enum = v.list(body.enum, `${path}.enum`).map((e, i) => {
      if (typeof e !== "string" && typeof e !== "number")
        v.fail(`${path}.enum[${i}]`, "expected a string or number")
      return e as string | number
    })
  }
  if (body.pattern !== undefined) {
    const pattern = v.string(body.pattern, `${path}.pattern`)
    try {
      new RegExp(pattern, "u")
    } catch {
      v.fail(`${path}.pattern`, "not a valid regular expression")
    }
    init.pattern = pattern
  }
  const allowLeadingDash = v.optionalBoolean(body.allow_leading_dash, `${path}.allow_leading_dash`)
  if (allowLeadingDash !== undefined) init.allowLeadingDash = allowLeadingDash
  if (body.items !== undefined) init.items = parseParameter(v, body.items, `${path}.items`)
  if (body.properties !== undefined) {
    init.properties = Object.fromEntries(
      Object.entries(v.object(body.properties, `${path}.properties`)).map(([k, p]) => [
        k,
        parseParameter(v, p, `${path}.properties.${k}`),
      ]),
    )
  }
  return init
}

/** `program: jq`: the string value is a program text that must parse in that program's grammar. */
function parseProgram(v: Validator, value: unknown, path: string): ProgramKind | undefined {
  const body = value as Record<string, unknown>
  if (body.program === undefined) return undefined
  const program = v.string(body.program, `${path}.program`)
  if (!PROGRAM_KINDS.includes(program as ProgramKind))
    v.fail(`${path}.program`, `expected one of ${PROGRAM_KINDS.join(", ")}`)
  if ((body.type ?? "string") !== "string")
    v.fail(`${path}.program`, "only a string parameter holds a program")
  return program as ProgramKind
}

/** Type checks that throw ConfigError naming file and key path. */
export class Validator {
  constructor(readonly fileName: string) {}

  fail(path: string, expected: string): never {
    throw new ConfigError(`${this.fileName}: ${path}: ${expected}`, this.fileName)
  }

  object(value: unknown, path: string): Record<string, unknown> {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      this.fail(path, "expected a mapping")
    return value as Record<string, unknown>
  }

  list(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) this.fail(path, "expected a list")
    return value as unknown[]
  }

  string(value: unknown, path: string): string {
    if (typeof value !== "string")
      this.fail(path, value === undefined ? "required, expected a string" : "expected a string")
    return value as string
  }

  optionalString(value: unknown, path: string): string | undefined {
    return value === undefined || value === null ? undefined : this.string(value, path)
  }

  optionalBoolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined
    if (typeof value !== "boolean") this.fail(path, "expected true or false")
    return value as boolean
  }

  keys(body: Record<string, unknown>, path: string, allowed: string[]): void {
    const unknown = Object.keys(body).find((k) => !allowed.includes(k))
    if (unknown !== undefined) this.fail(`${path}.${unknown}`, `unknown key (allowed: ${allowed.join(", ")})`)
  }
}
