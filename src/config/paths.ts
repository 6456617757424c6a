import { homedir } from "node:os"
import { dirname, isAbsolute, join, resolve } from "node:path"
import type { Env } from "./env.ts"

/**
 * A path an operator wrote in a config or toolset file, as the shell would read it from that
 * file's folder: `~` and `~/x` are the home folder, a relative path is relative to the file that
 * names it (not to wherever dupin happens to be started: a systemd unit runs in `/`). Without a
 * file (library options, flags) relative paths stay relative to the working directory.
 */
export function resolveConfigPath(path: string, namedIn: string | undefined, env: Env): string {
  const home = env.HOME || homedir()
  if (path === "~") return home
  if (path.startsWith("~/")) return join(home, path.slice(2))
  if (isAbsolute(path) || !namedIn) return path
  return resolve(dirname(namedIn), path)
}

/** `resolveConfigPath` over a list, `undefined` kept as is. */
export function resolveConfigPaths(
  paths: readonly string[] | undefined,
  namedIn: string | undefined,
  env: Env,
): string[] | undefined {
  return paths?.map((p) => resolveConfigPath(p, namedIn, env))
}
