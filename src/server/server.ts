import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Config } from "../config/config.ts"
import { ConfigError, errorMessage } from "../errors.ts"
import { log } from "../log.ts"
import { toolExecutorFor } from "../runtime/runtime.ts"
import { type App, createApp } from "./app.ts"
import { type HeaderGuard, listenWithHeaderGuard } from "./header-guard.ts"
import { ActiveRuns } from "./runs.ts"
import { ServerMetrics } from "./telemetry.ts"
import { warmUpLater } from "./warm-up.ts"

export type StartOptions = {
  host?: string
  port?: number
  /** Allows a non-loopback address without an auth token. */
  insecure?: boolean
  pingIntervalMs?: number
  /** Milliseconds a request's header block may take to arrive (slowloris); default `server.header_timeout`. */
  headerTimeoutMs?: number
  /**
   * Milliseconds the listener stays open after a drain starts, even with nothing in flight (capped
   * by the grace period): long enough for a load balancer's probe to see `/readyz` 503.
   */
  drainMs?: number
}

export type RunningServer = {
  app: App
  /** `http://host:port`, with the port actually bound (port 0 picks one). */
  url: string
  port: number
  /**
   * Graceful shutdown (CONTRACT §5 Operations): from the call on, `/readyz` and new requests answer
   * 503 with `Connection: close` while the listener stays open; running chats finish within
   * `graceMs`, then the rest are ended (streams get an `error` event) and the listener closes.
   */
  shutdown(graceMs?: number): Promise<void>
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000
/**
 * How long an idle server keeps its listener open after SIGTERM: a load balancer probing every
 * couple of seconds (HAProxy's default `inter 2s`) sees `/readyz` 503 instead of a refused port.
 */
export const DEFAULT_DRAIN_MS = 2_000
/** Larger header blocks than this are no client of this API (Bun's own parser allows 16 KB). */
const MAX_HEADER_BYTES = 64 * 1024

/**
 * Starts the API for `dupin serve`. Throws ConfigError (one line, exit 2) for a non-loopback host
 * without an auth token unless `insecure`, and for a toolset configuration that does not load.
 */
export function startServer(config: Config, options: StartOptions = {}): RunningServer {
  const host = options.host ?? config.server.host
  const port = options.port ?? config.server.port
  if (!isLoopback(host) && !config.server.authToken && !options.insecure) {
    throw new ConfigError(
      `Refusing to listen on ${host} without an auth token: set SVC_AUTH_TOKEN (or server.auth_token), or pass --insecure.`,
      "server.auth_token",
    )
  }
  // Built now so a broken toolset file stops the start instead of failing every request.
  toolExecutorFor(config)
  const runs = new ActiveRuns()
  const app = createApp(config, {
    runs,
    metrics: new ServerMetrics(),
    ...(options.pingIntervalMs ? { pingIntervalMs: options.pingIntervalMs } : {}),
  })
  const headerTimeoutMs = options.headerTimeoutMs ?? config.server.headerTimeout * 1000
  const listener = headerTimeoutMs > 0 ? guarded(app, host, port, headerTimeoutMs) : direct(app, host, port)
  const url = `http://${listener.hostname.includes(":") ? `[${listener.hostname}]` : listener.hostname}:${listener.port}`
  log.info("listening", { url, auth: Boolean(config.server.authToken), header_timeout_ms: headerTimeoutMs })
  warmUpLater(config)

  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS
  let stopping: Promise<void> | undefined
  return {
    app,
    url,
    port: listener.port,
    shutdown: (graceMs = DEFAULT_SHUTDOWN_GRACE_MS) => {
      stopping ??= (async () => {
        log.info("shutting down", { active_runs: runs.size, grace_ms: graceMs })
        const started = performance.now()
        // Marks the runs closing at once (app.ts answers 503 from then on); the listener stays
        // open, so probes and clients get that answer instead of a refused or reset connection.
        await runs.drain(graceMs)
        const open = Math.min(graceMs, drainMs) - (performance.now() - started)
        if (open > 0) await Bun.sleep(open)
        const closed = listener.stopAccepting()
        await Promise.race([closed, Bun.sleep(1000)])
        await listener.close()
      })()
      return stopping
    },
  }
}

/** Where clients connect, however the HTTP server is reached behind it. */
type Listener = {
  hostname: string
  port: number
  stopAccepting(): Promise<void>
  close(): Promise<void>
}

/**
 * The HTTP server on a private unix socket, behind the header guard on `host:port`
 * (header-guard.ts: Bun.serve alone cannot bound the time headers take to arrive).
 */
function guarded(app: App, host: string, port: number, headerTimeoutMs: number): Listener {
  const socketDir = mkdtempSync(join(tmpdir(), "dupin-http-"))
  const upstream = join(socketDir, "http.sock")
  app.listen({ unix: upstream } as Parameters<typeof app.listen>[0])
  const server = app.server
  if (!server) throw new ConfigError(`Could not start the HTTP server on ${upstream}.`, "server.port")
  let guard: HeaderGuard
  try {
    guard = listenWithHeaderGuard({
      hostname: host,
      port,
      upstream,
      headerTimeoutMs,
      maxHeaderBytes: MAX_HEADER_BYTES,
    })
  } catch (error) {
    server.stop(true)
    rmSync(socketDir, { recursive: true, force: true })
    throw bindError(error, host, port)
  }
  return {
    hostname: guard.hostname,
    port: guard.port,
    stopAccepting: () => {
      // Guarded connections already open stay open, as the server's own do.
      guard.stopAccepting()
      return server.stop(false)
    },
    close: async () => {
      await server.stop(true)
      await guard.close(1000)
      rmSync(socketDir, { recursive: true, force: true })
    },
  }
}

/** `server.header_timeout: 0`: Bun.serve on `host:port` itself (a proxy in front bounds headers). */
function direct(app: App, host: string, port: number): Listener {
  try {
    // Elysia binds with reusePort by default: a second `dupin serve` would then share the port
    // and take half the traffic (a test instance without auth next to a production one).
    app.listen({ hostname: host, port, reusePort: false })
  } catch (error) {
    throw bindError(error, host, port)
  }
  const server = app.server
  if (!server) throw new ConfigError(`Could not listen on ${host}:${port}.`, "server.port")
  return {
    hostname: server.hostname ?? host,
    port: server.port ?? port,
    stopAccepting: () => server.stop(false),
    close: () => server.stop(true),
  }
}

/**
 * A port in use is a runtime failure (CONTRACT §2: exit 1, one line naming the port), not a
 * config error; anything else that stops the bind is a setting to fix.
 */
function bindError(error: unknown, host: string, port: number): Error {
  if ((error as { code?: unknown } | null)?.code === "EADDRINUSE") {
    return new PortInUseError(host, port)
  }
  return new ConfigError(`Could not listen on ${host}:${port}: ${errorMessage(error)}`, "server.port")
}

/** Another process (or another `dupin serve`) already listens on `host:port`. */
export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(`port ${port} on ${host} is already in use: stop the other server, or pass --port or set SVC_PORT`)
    this.name = "PortInUseError"
  }
}

/** Whether binding `host` only exposes the API to this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h)
}
