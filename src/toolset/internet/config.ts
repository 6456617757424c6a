import { type Static, Type } from "@sinclair/typebox"
import { Value } from "@sinclair/typebox/value"
import type { Toolset } from "../../tool/toolset.ts"
import type { SsrfPolicy } from "./ssrf.ts"

/** `toolsets.internet.config`: one policy for every tool that reaches the network. */
export const InternetConfigSchema = Type.Object(
  {
    allow_private: Type.Optional(
      Type.Boolean({
        description: "Allow private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)",
      }),
    ),
    allowed_hosts: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "host or host:port allowed although private; loopback only for an exact host:port; never link-local or metadata",
      }),
    ),
    egress_allowlist: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "When set, the only hosts fetch_webpage and host_tcp_check may reach: exact names or IPs, or *.domain for names under a domain",
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
        description: "Extra request headers per host or host:port, sent only to that host",
      }),
    ),
    timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600 })),
    max_download_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    max_output_chars: Type.Optional(Type.Integer({ minimum: 256 })),
  },
  { additionalProperties: false },
)
export type InternetConfig = Static<typeof InternetConfigSchema>

export const DEFAULTS = {
  timeoutSeconds: 30,
  maxDownloadBytes: 2_000_000,
  maxOutputChars: 100_000,
  maxRedirects: 5,
}

/** The toolset's config, read at call time; invalid config never gets here (the toolset fails). */
export function internetConfig(toolset: Toolset | undefined): InternetConfig {
  const config = toolset?.config ?? {}
  // A walk of a few keys per call: compiling the schema would cost every start ~1 ms.
  return Value.Check(InternetConfigSchema, config) ? config : {}
}

export function ssrfPolicy(config: InternetConfig): SsrfPolicy {
  return {
    allowPrivate: config.allow_private ?? false,
    allowedHosts: config.allowed_hosts ?? [],
    ...(config.egress_allowlist ? { egressAllowlist: config.egress_allowlist } : {}),
  }
}
