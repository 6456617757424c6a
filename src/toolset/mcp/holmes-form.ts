/**
 * HolmesGPT's older forms of an `mcp_servers` entry, read as CONTRACT §8 with one warning each:
 * a top-level `url` (HolmesGPT reached it with SSE at `<url>/sse`) and `config.type` (the older
 * name of `config.mode`).
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
    log.warn("mcp server: config.type is HolmesGPT's older name; write config.mode", {
      file,
      key: `${base}.config.type`,
    })
    const { type: _, ...config } = out.config ?? {}
    out = { ...out, config: { ...config, mode: type } }
  }
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
