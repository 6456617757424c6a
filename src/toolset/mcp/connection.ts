/**
 * One kept connection to one MCP server. Connecting negotiates the protocol version (a
 * 2026-07-28 server gets the stateless protocol, an older one the 2025 handshake); a `url` without
 * `mode` tries Streamable HTTP and falls back to the legacy SSE transport. A stdio server that dies
 * is restarted with backoff; every call has a timeout and is cancelled on abort.
 */
import {
  type CallToolResult,
  Client,
  type Tool as McpToolDefinition,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client"
import type { Env } from "../../config/env.ts"
import { AbortError, errorMessage } from "../../errors.ts"
import { log } from "../../log.ts"
import { VERSION } from "../../version.ts"
import type { McpServerSpec, McpTransportSpec } from "./schema.ts"
import { BunStdioTransport } from "./stdio-transport.ts"

/** Backoff between restarts of a server that died: 0.5 s doubling to 30 s. */
const BACKOFF_FIRST_MS = 500
const BACKOFF_MAX_MS = 30_000
/** A connection that stayed up this long resets the backoff. */
const STABLE_MS = 60_000
/** The variables of dupin's environment a stdio server gets, besides its `config.env`. */
const STDIO_PASSTHROUGH = ["PATH", "HOME", "LANG"]

export type McpConnectionEvents = {
  /** The server's tool list after a `notifications/tools/list_changed`. */
  onToolsChanged?: (tools: McpToolDefinition[]) => void
}

export class McpConnection {
  readonly spec: McpServerSpec
  /** The transport in use once connected: stdio, streamable-http or sse. */
  transport: string
  #env: Env
  #events: McpConnectionEvents
  #client: Client | undefined
  #connecting: Promise<Client> | undefined
  #closed = false
  #failures = 0
  #retryAt = 0
  #retryTimer: ReturnType<typeof setTimeout> | undefined
  #connectedAt = 0

  constructor(spec: McpServerSpec, env: Env, events: McpConnectionEvents = {}) {
    this.spec = spec
    this.#env = env
    this.#events = events
    this.transport = spec.transport.kind === "http" ? "streamable-http" : spec.transport.kind
  }

  /**
   * The text with the configured header values and stdio `env` values (tokens, usually) replaced,
   * for every message that leaves this module: a server or library may echo them in an error.
   */
  redact(text: string): string {
    const spec = this.spec.transport
    const values = Object.values(spec.kind === "stdio" ? spec.env : spec.headers)
      .flatMap((v) => [v, ...v.split(/\s+/)])
      .filter((v) => v.length >= 6)
      .sort((a, b) => b.length - a.length)
    let out = text
    for (const value of values) out = out.replaceAll(value, "[REDACTED]")
    return out
  }

  /** The live client, connecting (after the backoff, if the server died) when there is none. */
  async client(signal?: AbortSignal): Promise<Client> {
    if (this.#closed) throw new Error(`MCP server ${this.spec.name} is stopped`)
    if (this.#client) return this.#client
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined
    })
    return await abortable(this.#connecting, signal)
  }

  async listTools(signal?: AbortSignal): Promise<McpToolDefinition[]> {
    const client = await this.client(signal)
    const listed = await client.listTools(undefined, { ...(signal ? { signal } : {}) })
    return listed.tools
  }

  /** One `tools/call`. `signal` covers the caller's abort and the tool's timeout. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    const client = await this.client(options.signal)
    const result = await client.callTool(
      { name, arguments: args },
      // The caller's signal owns the timeout; the SDK's own only stops its default (60 s) cutting in.
      { signal: options.signal, timeout: options.timeoutMs + 1000 },
    )
    return result as CallToolResult
  }

  /** Stops the server (stdio) or ends the session (HTTP); no restart follows. */
  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#retryTimer)
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined))
    this.#client = undefined
    await client?.close().catch(() => undefined)
  }

  async #connect(): Promise<Client> {
    const wait = this.#retryAt - Date.now()
    if (wait > 0) await Bun.sleep(wait)
    if (this.#closed) throw new Error(`MCP server ${this.spec.name} is stopped`)
    try {
      const client = await this.#open(this.spec.transport)
      this.#client = client
      this.#connectedAt = Date.now()
      return client
    } catch (error) {
      this.#failed()
      throw error
    }
  }

  async #open(spec: McpTransportSpec): Promise<Client> {
    if (spec.kind === "stdio") {
      const transport = new BunStdioTransport({
        command: spec.command,
        args: spec.args,
        env: this.#stdioEnv(spec.env),
      })
      try {
        return await this.#start(transport, "stdio")
      } catch (error) {
        const tail = transport.stderrTail
        throw new Error(`${errorMessage(error)}${tail ? ` (server stderr: ${tail.slice(-500)})` : ""}`)
      }
    }
    const fetch = withHeaders(spec.headers)
    if (spec.kind === "sse") return await this.#start(new SSEClientTransport(spec.url, { fetch }), "sse")
    try {
      return await this.#start(new StreamableHTTPClientTransport(spec.url, { fetch }), "streamable-http")
    } catch (error) {
      if (spec.kind !== "http") throw error
      log.info("mcp server: Streamable HTTP failed, trying the legacy SSE transport", {
        server: this.spec.name,
        reason: this.redact(errorMessage(error)),
      })
      return await this.#start(new SSEClientTransport(spec.url, { fetch }), "sse")
    }
  }

  async #start(transport: Transport, name: string): Promise<Client> {
    const client = new Client(
      { name: "dupin", version: VERSION },
      {
        versionNegotiation: { mode: "auto" },
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (error) {
                log.warn("mcp server: tool list refresh failed", {
                  server: this.spec.name,
                  reason: this.redact(errorMessage(error)),
                })
              } else if (tools) this.#events.onToolsChanged?.(tools)
            },
          },
        },
      },
    )
    client.onclose = () => this.#lost(client)
    try {
      await client.connect(transport)
    } catch (error) {
      client.onclose = undefined
      await client.close().catch(() => undefined)
      throw error
    }
    this.transport = name
    return client
  }

  /** The connection ended without `close()`: a restart is scheduled after the backoff. */
  #lost(client: Client): void {
    if (this.#client !== client) return
    this.#client = undefined
    if (this.#closed) return
    if (Date.now() - this.#connectedAt > STABLE_MS) this.#failures = 0
    this.#failed()
    log.warn("mcp server: connection lost, restarting", {
      server: this.spec.name,
      in_ms: Math.max(0, this.#retryAt - Date.now()),
    })
    clearTimeout(this.#retryTimer)
    this.#retryTimer = setTimeout(
      () => {
        if (this.#closed || this.#client) return
        this.client().catch((error: unknown) =>
          log.warn("mcp server: restart failed", {
            server: this.spec.name,
            reason: this.redact(errorMessage(error)),
          }),
        )
      },
      Math.max(0, this.#retryAt - Date.now()),
    )
    this.#retryTimer.unref?.()
  }

  #failed(): void {
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.#failures)
    this.#failures += 1
    this.#retryAt = Date.now() + delay
  }

  /** PATH, HOME and LANG of dupin's environment, then the server's own `env`; nothing else. */
  #stdioEnv(own: Record<string, string>): Record<string, string> {
    const env: Record<string, string> = {}
    for (const name of STDIO_PASSTHROUGH) {
      const value = this.#env[name]
      if (value !== undefined) env[name] = value
    }
    return { ...env, ...own }
  }
}

/** A fetch that adds the configured headers to every request of the transport. */
function withHeaders(headers: Record<string, string>): typeof fetch {
  const wrapped = (input: string | URL | Request, init?: RequestInit) => {
    const merged = new Headers(init?.headers)
    for (const [name, value] of Object.entries(headers)) if (!merged.has(name)) merged.set(name, value)
    return fetch(input, { ...init, headers: merged })
  }
  return wrapped as typeof fetch
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(new AbortError())
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError())
    signal.addEventListener("abort", onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort))
  })
}
