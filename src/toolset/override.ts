/**
 * The override merge every toolset kind shares: a source that names a known toolset with only
 * `enabled` and `config` adjusts it; the later source wins key by key.
 */
import { Type } from "@sinclair/typebox"
import { TypeCompiler } from "@sinclair/typebox/compiler"
import { assertValid, type Origin } from "../config/validate.ts"
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

const checkOverride = TypeCompiler.Compile(ToolsetOverrideSchema)

/** Validates a raw `toolsets.<name>` entry of a toolset built in code. */
export function parseOverride(value: unknown, origin: Origin): ToolsetSettings {
  if (value === undefined || value === null) return {}
  assertValid(checkOverride, value, origin)
  return value
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
