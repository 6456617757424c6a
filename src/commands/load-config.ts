import { resolve } from "node:path"
import { Config, type ConfigInit } from "../config/config.ts"
import { type Env, parseLogLevel, processEnv } from "../config/env.ts"
import { readConfigFile } from "../config/file.ts"
import { resolveConfigPath } from "../config/paths.ts"
import type { ConfigError } from "../errors.ts"
import { type LogLevel, log, setLogLevel } from "../log.ts"
import { applyContainment, applyContainmentInBackground } from "../runtime/containment.ts"
import { withToolsetProblems } from "../runtime/toolset-problems.ts"
import { configFilePath } from "./config-path.ts"

export type CliConfigOptions = {
  /** `--config`; wins over `SVC_CONFIG_PATH`. */
  configPath?: string | undefined
  /** `--model`; wins over the file's `model` and `MODEL`. */
  model?: string | undefined
  maxSteps?: number | undefined
  /** `--toolset-file`, added after the file's `custom_toolsets`. */
  toolsetFiles?: readonly string[]
  /** `--bash`. */
  enableBash?: boolean
  /**
   * Detect containment in the background (serve: its probes overlap the toolsets and routes, and
   * tool runs wait for them). Otherwise at once: `ask` starts its tool sandbox right after, and
   * measured slower (first provider call +40 ms) when that start waited for the loop.
   */
  containmentInBackground?: boolean
}

/**
 * The one place the CLI turns flags and environment into a Config (CONTRACT §2 and §3):
 * `--config` > `SVC_CONFIG_PATH` > `$XDG_CONFIG_HOME/dupin/config.yaml` when it exists > no file
 * (model from `--model`/`MODEL`, keys from the environment).
 */
export function loadCliConfig(options: CliConfigOptions, env: Env = processEnv()): Config {
  const config = buildCliConfig(options, env)
  // MODEL is the default only without a config model (CONTRACT §3): said once, or the operator
  // wonders why the variable they just exported changes nothing.
  const fromEnv = env.MODEL?.trim()
  if (fromEnv && !options.model && config.configFile && config.model !== fromEnv) {
    log.warn(
      `MODEL=${fromEnv} is ignored: ${config.configFile} sets model: ${config.model}; pass --model to choose another`,
      { config: config.configFile },
    )
  }
  // Every CLI command that loads a config may run tools: contain them from here on.
  if (options.containmentInBackground) void applyContainmentInBackground(config.security)
  else applyContainment(config.security)
  return config
}

function buildCliConfig(options: CliConfigOptions, env: Env): Config {
  const path = configFilePath(options.configPath, env)
  const overrides: ConfigInit = {
    env,
    ...(options.model ? { model: options.model } : {}),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.enableBash ? { enableBash: true } : {}),
  }
  const extraToolsets = options.toolsetFiles ?? []
  if (!path) {
    return new Config({
      ...overrides,
      ...(extraToolsets.length ? { customToolsets: [...extraToolsets] } : {}),
    })
  }
  if (extraToolsets.length > 0) {
    // Overrides replace file values, but --toolset-file must add to the file's custom_toolsets,
    // not drop them; the file is small, so reading its list here costs nothing noticeable.
    // Config resolves these against the file's folder: the flag's own are made absolute first,
    // since they are relative to the working directory.
    const fromFile = readConfigFile(path).custom_toolsets ?? []
    overrides.customToolsets = [
      ...fromFile,
      ...extraToolsets.map((p) => resolve(resolveConfigPath(p, undefined, env))),
    ]
  }
  return FileConfig.loadFromFile(path, overrides)
}

/** Names every typo at once: the file's own and its toolsets' (runtime/toolset-problems.ts). */
class FileConfig extends Config {
  static override explainFileError(error: ConfigError, path: string, env: Env): ConfigError {
    return withToolsetProblems(error, path, env)
  }
}

/**
 * Applies `SVC_LOG_LEVEL` (logs go to stderr). `fallback` is the level when the variable is unset:
 * `ask` uses WARN so its progress lines stay readable.
 */
export function applyLogLevel(fallback: LogLevel, env: Env = processEnv()): void {
  setLogLevel(env.SVC_LOG_LEVEL?.trim() ? parseLogLevel(env.SVC_LOG_LEVEL) : fallback)
}
