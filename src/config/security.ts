import { Type } from "@sinclair/typebox"
import {
  type ContainmentMode,
  DEFAULT_MAX_CONCURRENT_PROCESSES,
  type ProcView,
} from "../tool/containment/index.ts"

/** `security:` of the config file: how tool processes are contained (docs/configuration.md). */
export const SecuritySchema = Type.Object(
  {
    containment: Type.Optional(
      Type.Union([Type.Literal("auto"), Type.Literal("required"), Type.Literal("off")]),
    ),
    max_concurrent_tool_processes: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
    /** `host` lets `ps`/`top` in tools see the host's processes (dupin's entries stay closed by non-dumpable). */
    proc: Type.Optional(Type.Union([Type.Literal("private"), Type.Literal("host")])),
    /** More files or folders to hide from tools, e.g. an env file outside /etc/dupin. */
    hidden_paths: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
)

export type SecuritySettings = {
  containment: ContainmentMode
  maxConcurrentToolProcesses: number
  proc: ProcView
  /** dupin's config file plus `hidden_paths`: masked inside every tool sandbox. */
  hiddenPaths: readonly string[]
}

type RawSecurity = {
  containment?: ContainmentMode | undefined
  max_concurrent_tool_processes?: number | undefined
  proc?: ProcView | undefined
  hidden_paths?: string[] | undefined
}

/**
 * `customToolsets` are hidden too (R17): a custom toolset file may carry literal header tokens and
 * MCP `env:` values, and no tool needs to read it.
 */
export function securitySettings(
  raw: RawSecurity = {},
  configFile?: string,
  customToolsets: readonly string[] = [],
): SecuritySettings {
  return {
    containment: raw.containment ?? "auto",
    maxConcurrentToolProcesses: raw.max_concurrent_tool_processes ?? DEFAULT_MAX_CONCURRENT_PROCESSES,
    proc: raw.proc ?? "private",
    hiddenPaths: [...(configFile ? [configFile] : []), ...customToolsets, ...(raw.hidden_paths ?? [])],
  }
}
