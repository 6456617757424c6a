/**
 * The one path from settings to the toolsets an engine offers. Every kind enters here: the YAML
 * toolsets (built-in files < config `toolsets:` < custom files) and the code toolsets of the
 * registry, each then adjusted by the same override merge (`enabled`, `config`; later sources
 * win; command-line flags last). A new kind (MCP servers) adds factories to `factories`.
 */
import { readFileSync } from "node:fs"
import { booleanForm } from "../config/booleans.ts"
import { type Env, expandEnvDeep } from "../config/env.ts"
import { ConfigError, errorMessage } from "../errors.ts"
import { isRecord } from "../is-record.ts"
import { assertKnownFormats } from "../tool/formats.ts"
import type { Toolset } from "../tool/toolset.ts"
import { builtinToolsetDefinitions } from "./builtin/index.ts"
import { ConfigProblems } from "./config-problems.ts"
import type { ToolsetContext, ToolsetFactory, ToolsetSettings } from "./kind.ts"
import {
  buildToolsets,
  mergeToolsetSources,
  type ParsedToolsetFile,
  parseToolsetFileWithServers,
  type ToolsetDefinition,
} from "./loader.ts"
import type { McpServerSource } from "./mcp/index.ts"
import { applyOverride, isOverride, overrideOf, parseOverride } from "./override.ts"
import { CODE_TOOLSETS } from "./registry.ts"

export type ToolsetSources = {
  /** The config file's `toolsets:` map, raw. */
  config: Record<string, unknown>
  /** Names the config file in messages. */
  configFileName?: string | undefined
  /** Paths of custom YAML toolset files. */
  customFiles: readonly string[]
  /** Command-line switches (`ask --bash`): the last word over every file. */
  flags?: Readonly<Record<string, ToolsetSettings>>
  /** The config file's `mcp_servers:` map, raw (CONTRACT §8). */
  mcpServers?: Readonly<Record<string, unknown>> | undefined
  /** Library toolset instances, offered as they are. */
  additional: readonly Toolset[]
  context: ToolsetContext
}

export function assembleToolsets(
  sources: ToolsetSources,
  factories: readonly ToolsetFactory[] = CODE_TOOLSETS,
): Toolset[] {
  // Every source is checked even after one fails, so an operator sees all the typos of the config
  // file and the toolset files in one run (issue 12 item 11); the errors are thrown together.
  const problems = new ConfigProblems()
  const configFileName = sources.configFileName ?? "config"
  const config = expandToolsetConfig(sources.config, sources.context.env, configFileName, problems)
  const files = sources.customFiles.flatMap((path) => {
    const parsed = problems.attempt(() => {
      const text = readToolsetFile(path, sources.configFileName)
      return { path, ...parseToolsetFileWithServers(text, path) }
    })
    return parsed ? [parsed] : []
  })
  // `{{ env.NAME }}` in a custom file's `config:` reads as in the config file's `toolsets:`.
  const custom = files.flatMap((file) =>
    file.definitions.flatMap((d) => {
      const expanded = problems.attempt(() => expandDefinitionConfig(d, sources.context.env))
      return expanded ? [expanded] : []
    }),
  )
  const builtin = builtinToolsetDefinitions()

  // MCP servers come after every other toolset (their tools take the names left free), config
  // file first, then custom files in order. Like code toolsets, `toolsets.<name>` switches them.
  let toolsets: Toolset[] = []
  const servers = mcpSources(sources.mcpServers, configFileName, files)
  const mcp =
    servers.length === 0
      ? []
      : (problems.attempt(() =>
          mcpKind().mcpToolsetFactories(
            servers,
            sources.context.env,
            new Set([...builtin.map((d) => d.name), ...factories.map((f) => f.name)]),
            () => toolsets,
          ),
        ) ?? [])
  // With a broken server entry the servers' names still are not YAML toolsets: their
  // `toolsets.<server>` switches must not add "unknown toolset" to the report.
  const serverNames = servers.flatMap((s) => (isRecord(s.servers) ? Object.keys(s.servers) : []))
  const coded = new Set([...[...factories, ...mcp].map((f) => f.name), ...serverNames])

  const definitions =
    problems.attempt(() =>
      mergeToolsetSources({
        builtin,
        config: Object.fromEntries(Object.entries(config).filter(([name]) => !coded.has(name))),
        custom: custom.filter((d) => !coded.has(d.name)),
        configFileName,
      }),
    ) ?? []

  toolsets = problems.attempt(() => buildToolsets(definitions, sources.context.env)) ?? []
  for (const factory of [...factories, ...mcp]) {
    const toolset = problems.attempt(() =>
      createCodeToolset(factory, config, configFileName, custom, sources),
    )
    if (toolset) toolsets.push(toolset)
  }

  for (const extra of sources.additional) {
    if (toolsets.some((t) => t.name === extra.name)) {
      problems.add(
        new ConfigError(
          `additionalToolsets: a toolset named ${extra.name} already exists.`,
          "additionalToolsets",
        ),
      )
      continue
    }
    toolsets.push(extra)
  }
  for (const toolset of toolsets) problems.attempt(() => assertKnownFormats(toolset))
  problems.throwIfAny()
  return toolsets
}

/** A code (or MCP) toolset with its overrides merged: config file < custom files < flags. */
function createCodeToolset(
  factory: ToolsetFactory,
  config: Record<string, unknown>,
  configFileName: string,
  custom: readonly ToolsetDefinition[],
  sources: ToolsetSources,
): Toolset {
  const layers: ToolsetSettings[] = []
  if (factory.name in config) {
    const origin = { file: configFileName, base: `toolsets.${factory.name}` }
    layers.push(parseOverride(config[factory.name], origin, factory.configSchema))
  }
  for (const definition of custom.filter((d) => d.name === factory.name)) {
    if (!isOverride(definition)) {
      throw new ConfigError(
        `${definition.fileName}: toolsets.${factory.name}: ${factory.name} is built into dupin; set only enabled and config here`,
        definition.fileName,
      )
    }
    layers.push(overrideOf(definition, factory.configSchema))
  }
  const flag = sources.flags?.[factory.name]
  if (flag) layers.push(flag)
  const toolset = factory.create(layers.reduce(applyOverride, {}), sources.context)
  // The registered schema is the one the toolset's config was checked against above (a typo is a
  // config error naming file and key path); the toolset keeps it for its own checks.
  if (!toolset.configClasses.includes(factory.configSchema)) toolset.configClasses.push(factory.configSchema)
  return toolset
}

/**
 * The MCP kind (toolset/mcp/), loaded when a config or toolset file names a server: its entry
 * schema alone costs ~15 ms of every start to compile, and most configs have no MCP server.
 */
function mcpKind(): typeof import("./mcp/index.ts") {
  return require("./mcp/index.ts")
}

function mcpSources(
  config: Readonly<Record<string, unknown>> | undefined,
  configFileName: string,
  files: ReadonlyArray<ParsedToolsetFile & { path: string }>,
): McpServerSource[] {
  const sources: McpServerSource[] = []
  if (config && Object.keys(config).length > 0) sources.push({ file: configFileName, servers: config })
  for (const file of files) {
    if (file.mcpServers) sources.push({ file: file.path, servers: file.mcpServers })
  }
  return sources
}

/** A toolset file named by `custom_toolsets` (or `--toolset-file`); its error names the config file. */
function readToolsetFile(path: string, configFile: string | undefined): string {
  try {
    return readFileSync(path, "utf8")
  } catch (error) {
    const at = configFile ? `${configFile}: ` : ""
    throw new ConfigError(`${at}custom_toolsets: cannot read ${path}: ${errorMessage(error)}`, path)
  }
}

/**
 * `{{ env.NAME }}` in toolset settings (tokens in headers, URLs). A toolset switched off is left
 * alone, so a variable it would need does not have to exist.
 */
function expandToolsetConfig(
  config: Record<string, unknown>,
  env: Env,
  fileName: string,
  problems: ConfigProblems,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).flatMap(([name, entry]) => {
      const enabled =
        typeof entry === "object" && entry !== null ? (entry as { enabled?: unknown }).enabled : true
      const off = enabled === false || booleanForm(enabled) === false
      if (off) return [[name, entry]]
      const expanded = problems.attempt(() => expandEnvDeep(entry, env, `${fileName}: toolsets.${name}`))
      return expanded === undefined ? [] : [[name, expanded]]
    }),
  )
}

/** A definition whose `config:` has its `{{ env.NAME }}` replaced; a switched-off one is left alone. */
function expandDefinitionConfig(definition: ToolsetDefinition, env: Env): ToolsetDefinition {
  if (!definition.config || definition.enabled === false) return definition
  const where = `${definition.fileName}: toolsets.${definition.name}.config`
  return { ...definition, config: expandEnvDeep(definition.config, env, where) as Record<string, unknown> }
}
