/**
 * The override merge every toolset kind shares: a source that names a known toolset with only
 * `enabled` and `config` adjusts it; the later source wins key by key.
 */
import { type TSchema, Type } from "@sinclair/typebox"
import { assertValid, type Origin, schemaCheck } from "../config/validate.ts"
import type { ToolsetSettings } from "./kind.ts"
import type { ToolsetDefinition } from "./schema.ts"

const OVERRIDE_KEYS = ["enabled", "config"]

/** `toolsets.<name>` for a toolset that is not defined by that source, only adjusted. */
export const ToolsetOverrideSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
)

const checkOverride = schemaCheck(ToolsetOverrideSchema)

/**
 * Validates a raw `toolsets.<name>` entry of a toolset built in code, and its `config` against
 * the toolset's config schema when given: an unknown key or a wrong type there is a config error
 * naming the file and `toolsets.<name>.config.<key>`, like every other typo, not a toolset that
 * silently ends `failed`. An entry that switches the toolset off is left alone, as its
 * `{{ env.X }}` are (they need not be set).
 */
export function parseOverride(value: unknown, origin: Origin, configSchema?: TSchema): ToolsetSettings {
  if (value === undefined || value === null) return {}
  assertValid(checkOverride, value, origin)
  if (configSchema && value.config !== undefined && value.enabled !== false) {
    const config = structuredClone(value.config)
    assertValid(schemaCheck(configSchema), config, { ...origin, base: `${origin.base ?? "toolsets"}.config` })
    return { ...value, config }
  }
  return value
}

/** The `enabled`/`config` of an override-only entry of a toolset file, checked like the config file's. */
export function overrideOf(definition: ToolsetDefinition, configSchema?: TSchema): ToolsetSettings {
  const entry = {
    ...(definition.enabled !== undefined ? { enabled: definition.enabled } : {}),
    ...(definition.config !== undefined ? { config: definition.config } : {}),
  }
  return parseOverride(
    entry,
    { file: definition.fileName, base: `toolsets.${definition.name}` },
    configSchema,
  )
}

/** Whether a parsed entry only adjusts a toolset defined elsewhere. */
export function isOverride(definition: ToolsetDefinition): boolean {
  return definition.keys.every((k) => OVERRIDE_KEYS.includes(k))
}

export function applyOverride<T extends ToolsetSettings>(base: T, override: ToolsetSettings): T {
  return {
    ...base,
    enabled: override.enabled ?? base.enabled,
    config: override.config ?? base.config,
  }
}
