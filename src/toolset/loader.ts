/**
 * From YAML text to Toolset instances: parse and validate files, merge the three sources
 * (built-in < config `toolsets:` < custom files), and build YamlTools with their prerequisites.
 */
import { isMap, LineCounter, parseDocument } from "yaml"
import type { Env } from "../config/env.ts"
import { ConfigError } from "../errors.ts"
import { log } from "../log.ts"
import { ToolParameter } from "../tool/parameter.ts"
import { EnvPrerequisite, type Prerequisite } from "../tool/prerequisite.ts"
import { templatePlaceholders } from "../tool/template.ts"
import { Toolset } from "../tool/toolset.ts"
import { toolsetCommandEnv, warnEmptyReferences } from "./command-env.ts"
import { CommandPrerequisite } from "./command-prerequisite.ts"
import { applyOverride, isOverride } from "./override.ts"
import {
  parseToolsetDocument,
  parseToolsetsMap,
  type ToolDefinition,
  type ToolsetDefinition,
} from "./schema.ts"
import { YamlTool } from "./yaml-tool.ts"

export type { ToolsetDefinition } from "./schema.ts"

/** Parses one toolset file. Throws ConfigError naming the file (and line/column or key path). */
export function parseToolsetFile(text: string, fileName: string): ToolsetDefinition[] {
  return parseToolsetFileWithServers(text, fileName).definitions
}

/** One toolset file, parsed once: its definitions and its `mcp_servers:` map as written. */
export type ParsedToolsetFile = {
  definitions: ToolsetDefinition[]
  /** Checked to be a mapping when present; its entries are read by the MCP kind. */
  mcpServers: unknown
}

/** `parseToolsetFile`, keeping the file's `mcp_servers:` so nobody parses the text again. */
export function parseToolsetFileWithServers(text: string, fileName: string): ParsedToolsetFile {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true })
  const problem = doc.errors[0]
  if (problem) {
    const at = problem.linePos?.[0]
    const where = at ? `${fileName}:${at.line}:${at.col}` : fileName
    throw new ConfigError(`${where}: YAML syntax error: ${problem.message.split("\n")[0]}`, fileName)
  }
  if (!isMap(doc.contents))
    throw new ConfigError(`${fileName}: expected a mapping with a top-level \`toolsets:\` key`, fileName)
  const raw = doc.toJS() as { mcp_servers?: unknown }
  const definitions = parseToolsetDocument(raw, fileName)
  const ignored = definitions.flatMap((d) => d.ignored)
  // Display-only keys are noted; keys that changed what HolmesGPT did (a transformer summarising
  // output, a description shown to the user) warn once per file, naming what does not happen.
  const cosmetic = ignored.filter((path) => COSMETIC_KEYS.includes(lastKey(path)))
  const unsupported = ignored.filter((path) => !cosmetic.includes(path))
  if (cosmetic.length > 0)
    log.info("toolset file: HolmesGPT keys accepted but not used", { file: fileName, keys: cosmetic })
  if (unsupported.length > 0)
    log.warn(
      `toolset file ${fileName}: dupin does not support ${[...new Set(unsupported.map(lastKey))].join(", ")}; ` +
        `ignored at ${unsupported.join(", ")}`,
      { file: fileName, keys: unsupported },
    )
  return { definitions, mcpServers: raw.mcp_servers }
}

/**
 * Merges the toolset sources by name. The config file's `toolsets:` may switch a known toolset
 * (`enabled`), set its `config`, or define a whole new toolset; custom files do the same and win.
 * An override-only entry for a toolset nobody defines is an error naming it.
 */
export function mergeToolsetSources(sources: {
  builtin: ToolsetDefinition[]
  /** The config file's `toolsets:` map, raw (code toolsets such as `bash` already removed). */
  config: Record<string, unknown> | ToolsetDefinition[]
  custom: ToolsetDefinition[]
  /** Names the config file in messages. */
  configFileName?: string
}): ToolsetDefinition[] {
  const config = Array.isArray(sources.config)
    ? sources.config
    : parseToolsetsMap(sources.config, sources.configFileName ?? "config")
  const merged = new Map<string, ToolsetDefinition>()
  // The config file may set `enabled`/`config` of a toolset that a custom file defines: applied
  // once the custom files are read (a custom file's own override of a known toolset still wins).
  const customNames = new Set(sources.custom.filter((d) => !isOverride(d)).map((d) => d.name))
  const deferred = config.filter((d) => isOverride(d) && customNames.has(d.name))
  const first = config.filter((d) => !deferred.includes(d))
  for (const definition of [...sources.builtin, ...first, ...sources.custom, ...deferred]) {
    const existing = merged.get(definition.name)
    if (!isOverride(definition)) {
      // A whole definition replaces, it does not extend: a custom `linux/host` with one tool drops
      // the built-in's other tools, which the operator should hear about once.
      if (existing && existing.fileName !== definition.fileName) {
        log.warn(
          `toolset ${definition.name} from ${definition.fileName} replaces the toolset of that name from ` +
            `${existing.fileName} (its tools are no longer offered); give the new toolset another name to keep both`,
          { toolset: definition.name, file: definition.fileName, replaces: existing.fileName },
        )
      }
      merged.set(definition.name, definition)
      continue
    }
    if (!existing) {
      throw new ConfigError(
        `${definition.fileName}: toolsets.${definition.name}: unknown toolset "${definition.name}"; ` +
          "to define a new toolset give it a description and tools",
        definition.fileName,
      )
    }
    merged.set(definition.name, applyOverride(existing, definition))
  }
  return [...merged.values()]
}

/**
 * Builds the Toolsets. Tool names must be unique across all of them (the model calls by name).
 * Within one file a later toolset's tool replaces an earlier one of the same name, with a
 * warning: HolmesGPT's bundled files do this and load there.
 */
export function buildToolsets(definitions: ToolsetDefinition[], env?: Env): Toolset[] {
  const owners = new Map<string, ToolsetDefinition>()
  return resolveSameFileDuplicates(definitions).map((definition) => {
    for (const tool of definition.tools) {
      const owner = owners.get(tool.name)
      if (owner) {
        throw new ConfigError(
          `${definition.fileName}: toolsets.${definition.name}: tool name "${tool.name}" is already used by ` +
            `toolset ${owner.name} (${owner.fileName})`,
          definition.fileName,
        )
      }
      owners.set(tool.name, definition)
    }
    // Without an environment (tests building from text) no variable is passed and none warned about.
    const passEnv = env ? toolsetCommandEnv(definition, env) : {}
    if (env && definition.enabled !== false) warnEmptyReferences(definition, env, passEnv)
    return new Toolset({
      name: definition.name,
      description: definition.description,
      enabled: definition.enabled ?? true,
      prerequisites: definition.prerequisites.map(
        (p): Prerequisite =>
          "env" in p
            ? new EnvPrerequisite(p.env, passEnv)
            : new CommandPrerequisite(p.command, p.expectedOutput, passEnv),
      ),
      tools: definition.tools.map((tool) => buildTool(tool, definition.config, passEnv)),
      tags: definition.tags,
      config: definition.config,
      llmInstructions: definition.llmInstructions,
      docsUrl: definition.docsUrl,
    })
  })
}

/** Declared parameters plus those the template uses without declaring (inferred as strings). */
function buildTool(
  definition: ToolDefinition,
  config: Record<string, unknown> | undefined,
  passEnv: Record<string, string>,
): YamlTool {
  const parameters: Record<string, ToolParameter> = {}
  for (const [name, init] of Object.entries(definition.parameters)) parameters[name] = new ToolParameter(init)
  const placeholders = definition.placeholders ?? templatePlaceholders(definition.command)
  for (const placeholder of placeholders) {
    parameters[placeholder.name] ??= new ToolParameter({ type: "string", required: !placeholder.optional })
  }
  const tool = new YamlTool({
    name: definition.name,
    description: definition.description,
    ...(definition.outputFilter ? { outputFilter: definition.outputFilter } : {}),
    ...(definition.hostView ? { hostView: true } : {}),
    passEnv,
    command: definition.command,
    parameters,
    timeout: definition.timeout,
    requiresApproval: definition.requiresApproval,
    programs: definition.programs,
    config,
    // Checked when the file was parsed: the bash analysis of each command (~5 ms a tool, most of
    // a start's toolset build) then waits for the tool's first call.
    ...(definition.placeholders ? { checked: true } : {}),
  })
  // Said once at load: otherwise the first anyone hears of it is a call waiting for a human.
  if (tool.filterApproval)
    log.warn(`tool ${definition.name}: every call needs approval. ${tool.filterApproval}`, {
      tool: definition.name,
    })
  return tool
}

/** Drops a tool that a later toolset of the same file defines again, warning with both names. */
function resolveSameFileDuplicates(definitions: ToolsetDefinition[]): ToolsetDefinition[] {
  const last = new Map<string, ToolsetDefinition>()
  for (const definition of definitions) {
    for (const tool of definition.tools) last.set(`${definition.fileName}\0${tool.name}`, definition)
  }
  return definitions.map((definition) => {
    const tools = definition.tools.filter((tool) => {
      const winner = last.get(`${definition.fileName}\0${tool.name}`)!
      if (winner === definition) return true
      log.warn(
        `toolset file: tool "${tool.name}" is defined by toolsets ${definition.name} and ${winner.name}; ` +
          `the later one (${winner.name}) is used`,
        { file: definition.fileName, tool: tool.name, toolsets: [definition.name, winner.name] },
      )
      return false
    })
    return tools.length === definition.tools.length ? definition : { ...definition, tools }
  })
}

/** HolmesGPT keys that only change how its UI shows a toolset. */
const COSMETIC_KEYS = ["icon_url", "installation_instructions"]

/** `toolsets.x.tools[0].user_description` → `user_description`. */
function lastKey(path: string): string {
  return path.slice(path.lastIndexOf(".") + 1)
}
