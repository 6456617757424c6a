/**
 * Opens one MCP client session for a server spec: the stdio transport (dupin's own, see
 * stdio-transport.ts) or HTTP, where a `url` without `mode` tries Streamable HTTP and falls back
 * to the legacy SSE transport. Version negotiation is automatic.
 */
import {
  Client,
  type Tool as McpToolDefinition,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client"
import type { Env } from "../../config/env.ts"
import { errorMessage } from "../../errors.ts"
import { log } from "../../log.ts"
import { VERSION } from "../../version.ts"
import { gated } from "./gated-transport.ts"
import { dropLongEvents, limitResponse } from "./http-limit.ts"
import { acceptingValidator } from "./output-validator.ts"
import type { McpServerSpec } from "./schema.ts"
import { BunStdioTransport } from "./stdio-transport.ts"

/** The variables of dupin's environment a stdio server gets, besides its `config.env`. */
const STDIO_PASSTHROUGH = ["PATH", "HOME", "LANG"]

export type OpenHooks = {
  onToolsChanged: (tools: McpToolDefinition[]) => void
  /** The session ended (the server died, the stream closed). */
  onClose: (client: Client) => void
  redact: (text: string) => string
  /** Aborted when dupin stops the server: a handshake still running ends at once. */
  signal: AbortSignal
}

/** A server that has not finished the handshake by then is given up (and retried later). */
export const CONNECT_TIMEOUT_MS = 30_000

/** A connected client and the transport it uses: stdio, streamable-http or sse. */
export async function openClient(
  server: McpServerSpec,
  env: Env,
  hooks: OpenHooks,
): Promise<{ client: Client; transport: string }> {
  const spec = server.transport
  const start = async (transport: Transport, name: string) => ({
    client: await connect(server, transport, hooks),
    transport: name,
  })
  if (spec.kind === "stdio") {
    const transport = new BunStdioTransport({
      command: spec.command,
      args: spec.args,
      env: stdioEnv(env, spec.env),
      writablePaths: spec.writablePaths ?? [],
    })
    try {
      return await start(transport, "stdio")
    } catch (error) {
      const tail = transport.stderrTail
      throw new Error(`${errorMessage(error)}${tail ? ` (server stderr: ${tail.slice(-500)})` : ""}`)
    }
  }
  const fetch = withHeaders(spec.headers)
  if (spec.kind === "sse") return await start(gated(new SSEClientTransport(spec.url, { fetch })), "sse")
  const streamable = withHeaders(spec.headers, true)
  try {
    return await start(
      gated(new StreamableHTTPClientTransport(spec.url, { fetch: streamable })),
      "streamable-http",
    )
  } catch (error) {
    if (spec.kind !== "http") throw error
    log.info("mcp server: Streamable HTTP failed, trying the legacy SSE transport", {
      server: server.name,
      reason: hooks.redact(errorMessage(error)),
    })
    return await start(gated(new SSEClientTransport(spec.url, { fetch })), "sse")
  }
}

async function connect(server: McpServerSpec, transport: Transport, hooks: OpenHooks): Promise<Client> {
  const client = new Client(
    { name: "dupin", version: VERSION },
    {
      versionNegotiation: { mode: "auto" },
      // Not the SDK's Ajv: it would run the server's regexes on the event loop (output-validator.ts).
      jsonSchemaValidator: acceptingValidator,
      listChanged: {
        tools: {
          // A storm of notifications costs one refresh.
          debounceMs: 300,
          onChanged: (error, tools) => {
            if (error) {
              log.warn("mcp server: tool list refresh failed", {
                server: server.name,
                reason: hooks.redact(errorMessage(error)),
              })
            } else if (tools) hooks.onToolsChanged(tools)
          },
        },
      },
    },
  )
  client.onclose = () => hooks.onClose(client)
  // The SDK's version probe does not end on the request signal; closing the transport does.
  const stop = () => void transport.close().catch(() => undefined)
  hooks.signal.addEventListener("abort", stop, { once: true })
  try {
    if (hooks.signal.aborted) throw new Error(`MCP server ${server.name} is stopped`)
    await client.connect(transport, { signal: hooks.signal, timeout: CONNECT_TIMEOUT_MS })
  } catch (error) {
    client.onclose = undefined
    await client.close().catch(() => undefined)
    throw error
  } finally {
    hooks.signal.removeEventListener("abort", stop)
  }
  return client
}

/** PATH, HOME and LANG of dupin's environment, then the server's own `env`; nothing else. */
function stdioEnv(env: Env, own: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of STDIO_PASSTHROUGH) {
    const value = env[name]
    if (value !== undefined) out[name] = value
  }
  return { ...out, ...own }
}

/**
 * A fetch that adds the configured headers to every request and bounds every response's messages.
 * `streamable`: a GET is Streamable HTTP's stream of unsolicited messages (answers come on the
 * POST's own response), so its events past 64 KiB are dropped unread (finding R12). The legacy SSE
 * transport answers over its GET stream: there only the size cap holds.
 */
function withHeaders(headers: Record<string, string>, streamable = false): typeof fetch {
  const wrapped = (input: string | URL | Request, init?: RequestInit) => {
    const merged = new Headers(init?.headers)
    for (const [name, value] of Object.entries(headers)) if (!merged.has(name)) merged.set(name, value)
    const unsolicited = streamable && (init?.method ?? "GET").toUpperCase() === "GET"
    return fetch(input, { ...init, headers: merged }).then((response) =>
      unsolicited ? limitResponse(dropLongEvents(response)) : limitResponse(response),
    )
  }
  return wrapped as typeof fetch
}
