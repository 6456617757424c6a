import { readFileSync } from "node:fs"
import { ConfigError, errorMessage } from "../errors.ts"
import type { RunbookCatalog } from "../runbook/catalog.ts"
import { createRunbookToolset } from "../runbook/toolset.ts"
import type { Toolset } from "../tool/toolset.ts"
import { createBashToolset } from "../toolset/bash/index.ts"
import { builtinToolsetDefinitions } from "../toolset/builtin/index.ts"
import { createInternetToolset, INTERNET_TOOLSET } from "../toolset/internet/index.ts"
import { buildToolsets, mergeToolsetSources, parseToolsetFile } from "../toolset/loader.ts"
import { createPrometheusToolset, PROMETHEUS_TOOLSET } from "../toolset/prometheus/index.ts"
import { createPlanningToolset, PLANNING_TOOLSET } from "../toolset/todo.ts"
import { type Env, expandEnvDeep } from "./env.ts"

export type ToolsetSources = {
  /** The config file's `toolsets:` map. */
  config: Record<string, unknown>
  /** Paths of custom YAML toolset files. */
  customFiles: readonly string[]
  /** Library toolset instances. */
  additional: readonly Toolset[]
  runbooks: RunbookCatalog | undefined
  /** The CLI's `--bash`. */
  enableBash: boolean
  env: Env
  /** Files no bash command may name, even approved (dupin's config file, `hidden_paths`). */
  protectedPaths?: readonly string[]
}

/** Toolsets implemented in code and configured through `toolsets.<name>` like the YAML ones. */
const CODE_TOOLSETS = new Set(["bash", PLANNING_TOOLSET, INTERNET_TOOLSET, PROMETHEUS_TOOLSET])

/**
 * Every toolset one engine offers: the built-in YAML files < config `toolsets:` < custom files,
 * then the code toolsets (planning, runbook, bash, internet, prometheus/metrics) and the library's
 * own instances.
 */
export function assembleToolsets(input: ToolsetSources): Toolset[] {
  const sources = { ...input, config: expandToolsetConfig(input.config, input.env) }
  const yamlConfig = Object.fromEntries(
    Object.entries(sources.config).filter(([name]) => !CODE_TOOLSETS.has(name)),
  )
  const definitions = mergeToolsetSources({
    builtin: builtinToolsetDefinitions(),
    config: yamlConfig,
    custom: sources.customFiles.flatMap((path) => parseToolsetFile(readToolsetFile(path), path)),
  })
  const toolsets = [...buildToolsets(definitions)]

  const planning = createPlanningToolset()
  planning.enabled = codeToolsetEntry(sources.config[PLANNING_TOOLSET], PLANNING_TOOLSET).enabled ?? true
  toolsets.push(planning, createRunbookToolset(sources.runbooks))

  const bashEntry = codeToolsetEntry(sources.config.bash, "bash")
  // The kubeconfigs the tools use are credentials too: KUBECONFIG is a colon-separated list.
  const kubeconfigs = (sources.env.KUBECONFIG ?? "").split(":").filter(Boolean)
  const bash = createBashToolset({
    ...(bashEntry.config ?? {}),
    protectedPaths: [...(input.protectedPaths ?? []), ...kubeconfigs],
  })
  bash.enabled = sources.enableBash || (bashEntry.enabled ?? false)
  toolsets.push(bash)
  toolsets.push(createInternetToolset(codeToolsetEntry(sources.config[INTERNET_TOOLSET], INTERNET_TOOLSET)))
  toolsets.push(
    createPrometheusToolset(codeToolsetEntry(sources.config[PROMETHEUS_TOOLSET], PROMETHEUS_TOOLSET)),
  )

  for (const extra of sources.additional) {
    if (toolsets.some((t) => t.name === extra.name)) {
      throw new ConfigError(
        `additionalToolsets: a toolset named ${extra.name} already exists.`,
        "additionalToolsets",
      )
    }
    toolsets.push(extra)
  }
  return toolsets
}

function readToolsetFile(path: string): string {
  try {
    return readFileSync(path, "utf8")
  } catch (error) {
    throw new ConfigError(`custom_toolsets: cannot read ${path}: ${errorMessage(error)}`, path)
  }
}

type CodeToolsetEntry = { enabled?: boolean; config?: Record<string, unknown> }

/** `toolsets.<name>` for a toolset written in code: only `enabled` and `config` make sense. */
function codeToolsetEntry(value: unknown, name: string): CodeToolsetEntry {
  if (value === undefined || value === null) return {}
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`toolsets.${name}: expected a mapping with enabled and config.`, `toolsets.${name}`)
  }
  const entry = value as Record<string, unknown>
  const unknown = Object.keys(entry).filter((k) => k !== "enabled" && k !== "config")
  if (unknown.length > 0) {
    throw new ConfigError(
      `toolsets.${name}.${unknown[0]}: unknown key. Allowed keys here: enabled, config.`,
      `toolsets.${name}`,
    )
  }
  if (entry.enabled !== undefined && typeof entry.enabled !== "boolean") {
    throw new ConfigError(`toolsets.${name}.enabled: expected true or false.`, `toolsets.${name}.enabled`)
  }
  if (
    entry.config !== undefined &&
    (typeof entry.config !== "object" || entry.config === null || Array.isArray(entry.config))
  ) {
    throw new ConfigError(`toolsets.${name}.config: expected a mapping.`, `toolsets.${name}.config`)
  }
  return entry as CodeToolsetEntry
}

/**
 * `{{ env.NAME }}` in toolset settings (tokens in headers, URLs). A toolset switched off is left
 * alone, so a variable it would need does not have to exist.
 */
function expandToolsetConfig(config: Record<string, unknown>, env: Env): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([name, entry]) => {
      const off =
        typeof entry === "object" && entry !== null && (entry as { enabled?: unknown }).enabled === false
      return [name, off ? entry : expandEnvDeep(entry, env, `toolsets.${name}`)]
    }),
  )
}
