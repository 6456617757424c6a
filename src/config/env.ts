import { type ContextSettings, DEFAULT_CONTEXT_SETTINGS } from "../context/limits.ts"
import { ConfigError } from "../errors.ts"
import type { LogLevel } from "../log.ts"
import { addSecretValues } from "../redact-values.ts"
import { booleanForm } from "./booleans.ts"
import { replaceEnvTemplates } from "./env-template.ts"
import { isPromptSection, type PromptSection } from "./prompt-sections.ts"
import { secretsIn } from "./secret-values.ts"

export type Env = Record<string, string | undefined>

/** The process environment. The one place in dupin that reads `process.env`. */
export function processEnv(): Env {
  return process.env
}

export function parseBoolean(value: string, name: string): boolean {
  const form = booleanForm(value)
  if (form !== undefined) return form
  throw new ConfigError(`${name} must be one of 1/0/true/false/yes/no/on/off, not "${value}".`, name)
}

export function parseNumber(
  value: string | undefined,
  name: string,
  range: { min: number; max?: number; integer?: boolean },
): number | undefined {
  if (value === undefined || value.trim() === "") return undefined
  const n = Number(value)
  const ok = Number.isFinite(n) && n >= range.min && (range.max === undefined || n <= range.max)
  if (!ok || (range.integer && !Number.isInteger(n))) {
    const kind = range.integer ? "an integer" : "a number"
    const bounds = range.max === undefined ? `>= ${range.min}` : `from ${range.min} to ${range.max}`
    throw new ConfigError(`${name} must be ${kind} ${bounds}, not "${value}".`, name)
  }
  return n
}

/**
 * `ENABLED_PROMPTS`: comma-separated section keys, or `none`. Undefined means no restriction.
 * An unknown key is an error naming the valid ones: a typo must not silently disable a section.
 */
export function parseEnabledPrompts(value: string | undefined): Set<PromptSection> | undefined {
  if (value === undefined || value.trim() === "") return undefined
  if (value.trim().toLowerCase() === "none") return new Set()
  const keys = value
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean)
  const bad = keys.filter((k) => !isPromptSection(k))
  if (bad.length > 0) {
    throw new ConfigError(`ENABLED_PROMPTS has unknown section ${bad.join(", ")}.`, "ENABLED_PROMPTS")
  }
  return new Set(keys as PromptSection[])
}

export function parseLogLevel(value: string | undefined): LogLevel {
  const v = (value ?? "INFO").trim().toUpperCase()
  const level = v === "WARNING" ? "WARN" : v
  if (level === "DEBUG" || level === "INFO" || level === "WARN" || level === "ERROR") return level
  throw new ConfigError(`SVC_LOG_LEVEL must be DEBUG, INFO, WARN or ERROR, not "${value}".`, "SVC_LOG_LEVEL")
}

export function contextSettingsFromEnv(env: Env, toolDefinitionsPct?: number): ContextSettings {
  return {
    toolResultPct:
      parseNumber(env.TOOL_MAX_ALLOCATED_CONTEXT_WINDOW_PCT, "TOOL_MAX_ALLOCATED_CONTEXT_WINDOW_PCT", {
        min: 1,
        max: 100,
      }) ?? DEFAULT_CONTEXT_SETTINGS.toolResultPct,
    toolResultMaxTokens:
      parseNumber(env.TOOL_MAX_ALLOCATED_CONTEXT_WINDOW_TOKENS, "TOOL_MAX_ALLOCATED_CONTEXT_WINDOW_TOKENS", {
        min: 100,
        integer: true,
      }) ?? DEFAULT_CONTEXT_SETTINGS.toolResultMaxTokens,
    compactionThresholdPct:
      parseNumber(env.CONTEXT_WINDOW_COMPACTION_THRESHOLD_PCT, "CONTEXT_WINDOW_COMPACTION_THRESHOLD_PCT", {
        min: 10,
        max: 100,
      }) ?? DEFAULT_CONTEXT_SETTINGS.compactionThresholdPct,
    toolDefinitionsPct: toolDefinitionsPct ?? DEFAULT_CONTEXT_SETTINGS.toolDefinitionsPct,
  }
}

/** Replaces `{{ env.NAME }}`; a missing variable is an error naming it and the key that uses it. */
export function expandEnv(value: string, env: Env, where: string): string {
  return replaceEnvTemplates(value, (name) => {
    const v = env[name]
    if (v === undefined)
      throw new ConfigError(`${where} uses {{ env.${name} }}, but ${name} is not set.`, where)
    return v
  })
}

/**
 * `expandEnv` over every string inside a config value (toolset `config:` maps, headers...). The
 * secrets it finds there (credential-named keys, token-like variables, URL passwords) join the
 * redaction list: a toolset file's `config:` is expanded here, not in the Config.
 */
export function expandEnvDeep(value: unknown, env: Env, where: string): unknown {
  const out = expandDeep(value, env, where)
  addSecretValues(secretsIn(value, env))
  return out
}

function expandDeep(value: unknown, env: Env, where: string): unknown {
  if (typeof value === "string") return expandEnv(value, env, where)
  if (Array.isArray(value)) return value.map((v, i) => expandDeep(v, env, `${where}[${i}]`))
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, env, `${where}.${k}`)]))
  }
  return value
}
