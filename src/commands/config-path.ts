import { existsSync } from "node:fs"
import { join } from "node:path"
import type { Env } from "../config/env.ts"

/**
 * `$XDG_CONFIG_HOME/dupin/config.yaml`, or `~/.config/dupin/config.yaml` when XDG_CONFIG_HOME is
 * unset or empty (CONTRACT §2); undefined without a HOME either.
 */
export function defaultConfigPath(env: Env): string | undefined {
  const base = env.XDG_CONFIG_HOME?.trim()
  if (base) return join(base, "dupin", "config.yaml")
  const home = env.HOME?.trim()
  return home ? join(home, ".config", "dupin", "config.yaml") : undefined
}

/**
 * The config file a command reads: `--config`, else `SVC_CONFIG_PATH`, else the default path
 * when that file exists, else none (model and keys from flags and the environment).
 */
export function configFilePath(flag: string | undefined, env: Env): string | undefined {
  if (flag) return flag
  if (env.SVC_CONFIG_PATH) return env.SVC_CONFIG_PATH
  const fallback = defaultConfigPath(env)
  return fallback && existsSync(fallback) ? fallback : undefined
}
