import type { TSchema } from "@sinclair/typebox"
import type { Env } from "../config/env.ts"
import type { RunbookCatalog } from "../runbook/catalog.ts"
import type { Toolset } from "../tool/toolset.ts"

/** What `toolsets.<name>` (config file, custom files, flags) says about one toolset, merged. */
export type ToolsetSettings = {
  /** Undefined when no source said: the toolset's own default applies. */
  enabled?: boolean | undefined
  config?: Record<string, unknown> | undefined
}

/** What a run offers every toolset it builds, whatever its kind. */
export type ToolsetContext = {
  env: Env
  /** The configured runbooks, for the toolset that reads them. */
  runbooks: RunbookCatalog | undefined
  /** Files no tool may name, even approved: dupin's config file, `hidden_paths`. */
  protectedPaths: readonly string[]
}

/**
 * A toolset built in code: one entry in `CODE_TOOLSETS` (registry.ts). The config file's
 * `toolsets.<name>`, custom toolset files and command-line switches reach it through the same
 * override merge as the YAML toolsets; `create` gets the merged result.
 */
export type ToolsetFactory = {
  /** The toolset's name and its key under `toolsets:`. */
  name: string
  /** `toolsets.<name>.config`, checked at load: a typo or a wrong type is a config error naming file and key. */
  configSchema: TSchema
  create(settings: ToolsetSettings, context: ToolsetContext): Toolset
}
