/**
 * HolmesGPT's forms of an `mcp_servers` entry, read as CONTRACT §8: a top-level `url` (HolmesGPT
 * reached it with SSE at `<url>/sse`, so the URL read is logged), `config.type` (its name of
 * `config.mode`) and a stdio server's top-level `command`/`args`/`env` (its remote-MCP page's
 * form). The last two are HolmesGPT's documented forms and mean exactly what dupin's do: read
 * silently, since a warning at every start that cannot be acted on trains operators to ignore
 * warnings.
 */
import { ConfigError } from "../../errors.ts"
import { log } from "../../log.ts"
import type { McpServerBody } from "./schema.ts"

export function fromHolmesForm(body: McpServerBody, file: string, base: string): McpServerBody {
  let out = body
  const type = out.config?.type
  if (type !== undefined) {
    if (out.config?.mode !== undefined && out.config.mode !== type) {
      throw new ConfigError(
        `${file}: ${base}.config.type: says ${type} but config.mode says ${out.config.mode}; keep only mode`,
        file,
      )
    }
    log.debug("mcp server: config.type read as config.mode", { file, key: `${base}.config.type` })
    const { type: _, ...config } = out.config ?? {}
    out = { ...out, config: { ...config, mode: type } }
  }
  out = stdioFromTopLevel(out, file, base)
  if (out.url === undefined) return out
  if (out.config?.url !== undefined && out.config.url !== out.url) {
    throw new ConfigError(
      `${file}: ${base}.url: also set as ${base}.config.url with another value; keep only config.url`,
      file,
    )
  }
  const { url, ...rest } = out
  const mode = rest.config?.mode ?? "sse"
  // HolmesGPT reached a top-level url over SSE, adding /sse to the path when it was missing.
  const sseUrl = mode === "sse" && !/\/sse\/?$/.test(url) ? `${url.replace(/\/+$/, "")}/sse` : url
  log.warn("mcp server: top-level url is HolmesGPT's older form; write config.url (and config.mode)", {
    file,
    key: `${base}.url`,
    read_as: { mode, url: sseUrl.replace(/\?.*$/, "") },
  })
  return { ...rest, config: { ...rest.config, mode, url: sseUrl } }
}

/** Top-level `command`, `args`, `env` into `config`, where a value given twice must agree. */
function stdioFromTopLevel(body: McpServerBody, file: string, base: string): McpServerBody {
  const { command, args, env, ...rest } = body
  if (command === undefined && args === undefined && env === undefined) return body
  const config = { ...rest.config }
  for (const [key, value] of [
    ["command", command],
    ["args", args],
    ["env", env],
  ] as const) {
    if (value === undefined) continue
    if (config[key] !== undefined && JSON.stringify(config[key]) !== JSON.stringify(value)) {
      throw new ConfigError(
        `${file}: ${base}.${key}: also set as ${base}.config.${key} with another value; keep one`,
        file,
      )
    }
    Object.assign(config, { [key]: value })
  }
  return { ...rest, config }
}
