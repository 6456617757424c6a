import { Toolset, ToolsetTag } from "../../tool/toolset.ts"
import type { ToolsetFactory } from "../kind.ts"
import { InternetConfigSchema } from "./config.ts"
import { FetchWebpageTool } from "./fetch-webpage-tool.ts"
import type { Resolver } from "./ssrf.ts"
import { HostTcpCheckTool } from "./tcp-check.ts"

export { classifyAddress } from "./address.ts"
export { type InternetConfig, InternetConfigSchema } from "./config.ts"
export { type FetchedPage, fetchPage } from "./fetch-page.ts"
export { guardUrl, type Resolver, SsrfError, type SsrfPolicy } from "./ssrf.ts"

export const INTERNET_TOOLSET = "internet"

export type InternetToolsetOptions = {
  /** Replaces `dns.lookup` (tests, or a library user's own resolver). */
  resolve?: Resolver
}

/**
 * The `internet` toolset: every tool that reaches the network from dupin's process (`fetch_webpage`,
 * `host_tcp_check`), so one config (SSRF policy, egress allowlist) governs them all. Enabled by
 * default; see docs/security.md "SSRF guard".
 */
export function createInternetToolset(
  entry: { enabled?: boolean; config?: Record<string, unknown> } = {},
  options: InternetToolsetOptions = {},
): Toolset {
  return new Toolset({
    name: INTERNET_TOOLSET,
    description: "Fetch public web pages as text and check TCP reachability, under the SSRF guard",
    enabled: entry.enabled ?? true,
    tools: [new FetchWebpageTool(options.resolve), new HostTcpCheckTool(options.resolve)],
    tags: [ToolsetTag.CORE],
    configClasses: [InternetConfigSchema],
    config: entry.config ?? {},
    llmInstructions:
      "fetch_webpage reads public web pages (docs, changelogs, status pages); host_tcp_check tests whether host:port accepts TCP connections. Both refuse loopback and cloud metadata addresses, private ones unless the operator allows them, and hosts outside the operator's egress allowlist; do not try to work around a refusal.",
  })
}

/** The registry entry: on unless `toolsets.internet.enabled: false`. */
export const internetToolset: ToolsetFactory = {
  name: INTERNET_TOOLSET,
  configSchema: InternetConfigSchema,
  create: (settings) => createInternetToolset(settings),
}
