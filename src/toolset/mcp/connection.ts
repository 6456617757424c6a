/**
 * One kept connection to one MCP server. Connecting negotiates the protocol version (a
 * 2026-07-28 server gets the stateless protocol, an older one the 2025 handshake); a `url` without
 * `mode` tries Streamable HTTP and falls back to the legacy SSE transport. A stdio server that dies
 * is restarted with backoff; every call has a timeout and is cancelled on abort.
 */
import type { CallToolResult, Client, Tool as McpToolDefinition } from "@modelcontextprotocol/client"
import { raceAbort, sleepUnlessAborted } from "../../abort.ts"
import type { Env } from "../../config/env.ts"
import { errorMessage } from "../../errors.ts"
import { log } from "../../log.ts"
import type { McpServerSpec } from "./schema.ts"

type Sdk = typeof import("@modelcontextprotocol/client")
/** The SDK, once the first connection loaded it (its errors are only seen after that). */
let sdk: Sdk | undefined

/**
 * The SDK and the client opener, loaded with the first connection: the SDK is the largest module
 * dupin has (~200 ms to evaluate from source), and most starts configure no MCP server at all.
 */
async function loadOpener(): Promise<typeof import("./open-client.ts")["openClient"]> {
  const [loaded, opener] = await Promise.all([
    import("@modelcontextprotocol/client"),
    import("./open-client.ts"),
  ])
  sdk = loaded
  return opener.openClient
}

/** Backoff between restarts of a server that died: 0.5 s doubling to 30 s. */
const BACKOFF_FIRST_MS = 500
const BACKOFF_MAX_MS = 30_000
/** A connection that stayed up this long resets the backoff. */
const STABLE_MS = 60_000

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
  readonly #stop = new AbortController()

  constructor(spec: McpServerSpec, env: Env, events: McpConnectionEvents = {}) {
    this.spec = spec
    this.#env = env
    this.#events = events
    this.transport = spec.transport.kind === "http" ? "streamable-http" : spec.transport.kind
  }

  /**
   * The text with the configured header values, the URL's password and query values, and stdio
   * `env` values (tokens, usually) replaced, for every failure reason, error and log line: a server
   * or library may echo them.
   */
  redact(text: string): string {
    const spec = this.spec.transport
    return replaceAll(
      text,
      spec.kind === "stdio"
        ? Object.values(spec.env)
        : [...Object.values(spec.headers), spec.url.password, ...spec.url.searchParams.values()],
    )
  }

  /**
   * A tool result the model will see: the header and URL secrets, and the `env` values whose names
   * say they are secrets (`*TOKEN*`, `*KEY*`, `*SECRET*`, `*PASS*`, `*AUTH*`, `*CRED*`), replaced.
   * Other env values (a log level, a path) stay: results mention them legitimately.
   */
  redactResult(text: string): string {
    const spec = this.spec.transport
    return replaceAll(
      text,
      spec.kind === "stdio"
        ? Object.entries(spec.env)
            .filter(([name]) => SECRET_NAME.test(name))
            .map(([, value]) => value)
        : [...Object.values(spec.headers), spec.url.password, ...spec.url.searchParams.values()],
    )
  }

  /** The protocol version negotiated with the server, once connected. */
  get protocolVersion(): string | undefined {
    return this.#client?.getNegotiatedProtocolVersion()
  }

  /** The live client, connecting (after the backoff, if the server died) when there is none. */
  async client(signal?: AbortSignal): Promise<Client> {
    if (this.#closed) throw new Error(`MCP server ${this.spec.name} is stopped`)
    if (this.#client) return this.#client
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined
    })
    return await raceAbort(this.#connecting, signal)
  }

  async listTools(signal?: AbortSignal): Promise<McpToolDefinition[]> {
    const client = await this.client(signal)
    const listed = await client.listTools(undefined, { ...(signal ? { signal } : {}) })
    return listed.tools
  }

  /**
   * One `tools/call`. `signal` covers the caller's abort and the tool's timeout. Over HTTP, a
   * failure of the connection itself (the server restarted and forgot the session, or is down)
   * drops the session so the next call opens a new one; a request the server refused outright
   * (HTTP 400/404: it never ran) is sent once more on the new session.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    try {
      return await this.#callOnce(name, args, options)
    } catch (error) {
      if (options.signal.aborted || this.spec.transport.kind === "stdio" || !isConnectionFailure(error))
        throw error
      this.#drop()
      if (sdk && error instanceof sdk.SdkHttpError && (error.status === 400 || error.status === 404))
        return await this.#callOnce(name, args, options)
      throw error
    }
  }

  async #callOnce(
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

  /** Forgets the current session (HTTP); the next call connects again. */
  #drop(): void {
    const client = this.#client
    this.#client = undefined
    client?.close().catch(() => undefined)
  }

  /** Stops the server (stdio) or ends the session (HTTP); no restart follows. */
  async close(): Promise<void> {
    this.#closed = true
    this.#stop.abort()
    clearTimeout(this.#retryTimer)
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined))
    this.#client = undefined
    await client?.close().catch(() => undefined)
  }

  async #connect(): Promise<Client> {
    const wait = this.#retryAt - Date.now()
    if (wait > 0) await sleepUnlessAborted(wait, this.#stop.signal)
    if (this.#closed) throw new Error(`MCP server ${this.spec.name} is stopped`)
    try {
      const openClient = await loadOpener()
      const { client, transport } = await openClient(this.spec, this.#env, {
        onToolsChanged: (tools) => this.#events.onToolsChanged?.(tools),
        onClose: (closed) => this.#lost(closed),
        redact: (text) => this.redact(text),
        signal: this.#stop.signal,
      })
      this.transport = transport
      this.#client = client
      this.#connectedAt = Date.now()
      return client
    } catch (error) {
      this.#failed()
      throw error
    }
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
}

/** Names of env variables that hold secrets. */
const SECRET_NAME = /TOKEN|KEY|SECRET|PASS|AUTH|CRED/i
/** Words of a header value that are not secret (`Bearer <token>`). */
const AUTH_SCHEMES = new Set(["bearer", "basic", "token", "digest", "apikey"])

/** The text with each secret (and each long word of a multi-word secret) replaced by [REDACTED]. */
function replaceAll(text: string, secrets: readonly string[]): string {
  const values = secrets
    .flatMap((v) => [v, ...v.split(/\s+/)])
    .filter((v) => v.length >= 6 && !AUTH_SCHEMES.has(v.toLowerCase()))
    .sort((a, b) => b.length - a.length)
  let out = text
  for (const value of values) out = out.replaceAll(value, "[REDACTED]")
  return out
}

/** Not an answer from the server (a JSON-RPC error) nor a timeout: the connection itself failed. */
function isConnectionFailure(error: unknown): boolean {
  if (!sdk) return true
  if (error instanceof sdk.ProtocolError) return false
  if (error instanceof sdk.SdkError && error.code === sdk.SdkErrorCode.RequestTimeout) return false
  return true
}
