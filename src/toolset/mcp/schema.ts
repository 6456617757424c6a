/**
 * One `mcp_servers.<name>` entry (CONTRACT §8) as a TypeBox schema, and its reading: unknown keys
 * are refused with file and key path, HolmesGPT's top-level `url` moves into `config.url` (one
 * warning), `{{ env.NAME }}` is expanded, and the transport is settled.
 */
import { type Static, Type } from "@sinclair/typebox"
import { TypeCompiler } from "@sinclair/typebox/compiler"
import { type Env, expandEnvDeep } from "../../config/env.ts"
import { resolveConfigPath } from "../../config/paths.ts"
import { assertValid } from "../../config/validate.ts"
import { ConfigError } from "../../errors.ts"
import { addSecretValues, looksSecret } from "../../redact-values.ts"
import { fromHolmesForm } from "./holmes-form.ts"

const Str = Type.String({ expected: "a string" })
const Bool = Type.Boolean({ expected: "true or false" })
const strict = { additionalProperties: false, expected: "a mapping" } as const
const StrList = Type.Array(Str, { expected: "a list of strings" })
const StrMap = Type.Record(Type.String(), Str, { expected: "a mapping of names to strings" })

export const MCP_MODES = ["streamable-http", "sse", "stdio"] as const
export type McpMode = (typeof MCP_MODES)[number]

const ServerConfigSchema = Type.Object(
  {
    mode: Type.Optional(
      Type.Union(
        MCP_MODES.map((m) => Type.Literal(m)),
        { expected: `one of ${MCP_MODES.join(", ")}` },
      ),
    ),
    url: Type.Optional(Str),
    /** HolmesGPT's older name for `mode`. */
    type: Type.Optional(
      Type.Union(
        MCP_MODES.map((m) => Type.Literal(m)),
        { expected: `one of ${MCP_MODES.join(", ")}` },
      ),
    ),
    headers: Type.Optional(StrMap),
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, expected: "a positive number of seconds" })),
    command: Type.Optional(Str),
    args: Type.Optional(StrList),
    env: Type.Optional(StrMap),
    /** stdio only: where the server may write besides its temp dir (CONTRACT §8). */
    writable_paths: Type.Optional(StrList),
  },
  strict,
)

export const McpServerSchema = Type.Object(
  {
    description: Type.Optional(Str),
    enabled: Type.Optional(Bool),
    llm_instructions: Type.Optional(Str),
    requires_approval: Type.Optional(
      Type.Union([Bool, StrList], { expected: "true, false or a list of tool names" }),
    ),
    allowed_tools: Type.Optional(
      Type.Union([Type.Null(), StrList], { expected: "a list of tool names (or null)" }),
    ),
    config: Type.Optional(ServerConfigSchema),
    /** HolmesGPT's place for the URL; moved into `config.url`. */
    url: Type.Optional(Str),
    /** HolmesGPT's place for a stdio server's program, arguments and environment; moved into `config`. */
    command: Type.Optional(Str),
    args: Type.Optional(StrList),
    env: Type.Optional(StrMap),
    /** HolmesGPT toolset keys: shown for a failed server, kept, or accepted and ignored. */
    docs_url: Type.Optional(Str),
    tags: Type.Optional(StrList),
    icon_url: Type.Optional(Type.Unknown()),
    installation_instructions: Type.Optional(Type.Unknown()),
  },
  strict,
)
export type McpServerBody = Static<typeof McpServerSchema>
const checkServer = TypeCompiler.Compile(McpServerSchema)

/** How dupin reaches a server. `http` tries Streamable HTTP, then the legacy SSE transport. */
export type McpTransportSpec =
  | {
      kind: "stdio"
      command: string
      args: string[]
      env: Record<string, string>
      /** Where the server may write besides its temp dir (default nowhere else). */
      writablePaths?: string[]
    }
  | { kind: "streamable-http" | "sse" | "http"; url: URL; headers: Record<string, string> }

/** A checked server entry. */
export type McpServerSpec = {
  name: string
  description: string
  enabled: boolean
  llmInstructions: string | undefined
  docsUrl: string | undefined
  tags: readonly string[]
  /** true: every tool; a list: those tools; false: none. */
  requiresApproval: boolean | readonly string[]
  /** null: every tool the server offers. */
  allowedTools: readonly string[] | null
  /** Seconds per call; undefined: `limits.tool_timeout_default`. */
  timeout: number | undefined
  transport: McpTransportSpec
}

/** The transport's name as `dupin toolsets` and `/api/info` show it. */
export function transportName(spec: McpTransportSpec): string {
  return spec.kind === "http" ? "streamable-http (falls back to sse)" : spec.kind
}

/**
 * Checks one entry. `file` names the file in messages; the key path starts at `mcp_servers.<name>`.
 * A disabled entry is checked but its `{{ env.NAME }}` are left alone.
 */
export function parseMcpServer(name: string, raw: unknown, file: string, env: Env): McpServerSpec {
  const base = `mcp_servers.${name}`
  const value = raw === null || raw === undefined ? {} : raw
  assertValid(checkServer, value, { file, base })
  const body = fromHolmesForm(value, file, base)
  const enabled = body.enabled ?? true
  const config = enabled
    ? (expandEnvDeep(body.config ?? {}, env, `${base}.config`) as NonNullable<McpServerBody["config"]>)
    : (body.config ?? {})
  if (enabled) {
    // Header values (tokens) and secret-looking env values are hidden wherever they show up again.
    addSecretValues([
      ...Object.values(config.headers ?? {}).map((v) => v.replace(/^(Bearer|Basic|Token)\s+/i, "")),
      ...Object.entries(config.env ?? {}).flatMap(([k, v]) => (looksSecret(k, v) ? [v] : [])),
    ])
  }
  return {
    name,
    description: body.description ?? `MCP server ${name}`,
    enabled,
    llmInstructions: body.llm_instructions,
    docsUrl: body.docs_url,
    tags: body.tags ?? [],
    requiresApproval: body.requires_approval ?? false,
    allowedTools: body.allowed_tools ?? null,
    timeout: config.timeout,
    transport: enabled ? transportOf(config, file, `${base}.config`, env) : placeholder(config),
  }
}

/** Every entry of one `mcp_servers:` map. */
export function parseMcpServers(map: unknown, file: string, env: Env): McpServerSpec[] {
  if (map === null || map === undefined) return []
  if (typeof map !== "object" || Array.isArray(map))
    throw new ConfigError(`${file}: mcp_servers: expected a mapping of server names to settings`, file)
  return Object.entries(map).map(([name, entry]) => parseMcpServer(name, entry, file, env))
}

function transportOf(
  config: NonNullable<McpServerBody["config"]>,
  file: string,
  base: string,
  env: Env,
): McpTransportSpec {
  const fail = (message: string) => {
    throw new ConfigError(`${file}: ${base}: ${message}`, file)
  }
  const mode = config.mode ?? (config.command !== undefined ? "stdio" : undefined)
  if (mode === "stdio") {
    if (config.url !== undefined) fail("a stdio server takes command, not url")
    if (config.headers !== undefined) fail("headers are for url servers; a stdio server takes env")
    if (!config.command) return fail("stdio needs command (the program that runs the server)")
    // A program named by path (`./server.py`, `~/bin/mcp`) is found from the file that names it,
    // like every path in a config; a bare name (`npx`) is looked up on PATH as before.
    // A name with a slash is a path for the shell too (`bin/server` is not looked up on PATH).
    const command =
      config.command.startsWith("~/") || config.command.includes("/")
        ? resolveConfigPath(config.command, file, env)
        : config.command
    const writable = config.writable_paths?.map((p) => resolveConfigPath(p, file, env))
    return {
      kind: "stdio",
      command,
      args: config.args ?? [],
      env: config.env ?? {},
      ...(writable ? { writablePaths: writable } : {}),
    }
  }
  if (config.writable_paths !== undefined) fail("writable_paths is for stdio servers")
  if (config.command !== undefined || config.args !== undefined || config.env !== undefined)
    fail(`command, args and env are for stdio servers; this one has mode ${mode ?? "streamable-http"}`)
  if (!config.url) return fail("give url (an HTTP server) or command (a stdio server)")
  let url: URL
  try {
    url = new URL(config.url)
  } catch {
    return fail(`url ${JSON.stringify(config.url)} is not a URL (expected http://host:port/path)`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    fail(`url must be http:// or https://, not ${url.protocol}`)
  return { kind: mode ?? "http", url, headers: config.headers ?? {} }
}

/** A disabled server is never reached; its transport is only shown. */
function placeholder(config: NonNullable<McpServerBody["config"]>): McpTransportSpec {
  return config.command !== undefined || config.mode === "stdio"
    ? { kind: "stdio", command: config.command ?? "", args: [], env: {} }
    : { kind: config.mode ?? "http", url: new URL("http://disabled.invalid/"), headers: {} }
}
