import { mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import { createAlertService } from "../alerts/create-service.ts"
import type { Config } from "../config/config.ts"
import { ConfigError, errorMessage } from "../errors.ts"
import { log } from "../log.ts"
import { createRuntime, type Runtime } from "../runtime/runtime.ts"
import { privateSocketParent } from "../tool/containment/index.ts"
import { type App, createApp } from "./app.ts"
import { type HeaderGuard, type HeaderGuardOptions, listenWithHeaderGuard } from "./header-guard.ts"
import { isOwnProcessPeer } from "./own-process-peer.ts"
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
  /** Serve the web console at `/` (default `server.console`). */
  console?: boolean
  /** Milliseconds of lame duck before a drain refuses anything; default `server.drain_delay`. */
  drainDelayMs?: number
}

export type ShutdownOptions = {
  /**
   * Lame duck first (SIGTERM from an orchestrator): `/readyz` says 503 while new requests are still
   * served for `server.drain_delay`, so the load balancer moves away before anything is refused.
   * Off for a person's Ctrl+C, who wants the server to stop now.
   */
  lameDuck?: boolean
}

export type RunningServer = {
  app: App
  /** What the server runs on: its executor, models and engines. */
  runtime: Runtime
  /**
   * Resolves when the warm-up starts (warm-up.ts): once a `/readyz` has answered 200, or
   * START_QUIET_MS after the bind when no probe came. Its steps hold the event loop for 5-25 ms
   * each, and a probe that came meanwhile would wait. The sandbox start and the prerequisite
   * checks do not wait for it: they are processes, and the first conversation needs them most.
   */
  afterStart: Promise<void>
  /** `http://host:port`, with the port actually bound (port 0 picks one). */
  url: string
  port: number
  /**
   * Graceful shutdown (CONTRACT §5 Operations): from the call on, `/readyz` answers 503; with
   * `lameDuck`, new requests are still served for the drain delay (within `graceMs`); then new
   * requests answer 503 with `Connection: close` while the listener stays open; running chats
   * finish within what is left of `graceMs`, then the rest are ended (streams get an `error`
   * event) and the listener closes.
   */
  shutdown(graceMs?: number, options?: ShutdownOptions): Promise<void>
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
  const runtime = createRuntime(config)
  runtime.executor
  const runs = new ActiveRuns()
  const metrics = new ServerMetrics()
  const alerts = config.alerts.enabled ? createAlertService(runtime, metrics.registry) : undefined
  const gate = startGate()
  const app = createApp(config, {
    runtime,
    onReady: gate.open,
    runs,
    metrics,
    ...(alerts ? { alerts } : {}),
    ...(options.pingIntervalMs ? { pingIntervalMs: options.pingIntervalMs } : {}),
    ...(options.console !== undefined ? { console: options.console } : {}),
  })
  const headerTimeoutMs =
    options.headerTimeoutMs ?? headerTimeoutFor(host, config.server.headerTimeout) * 1000
  // Without a token, loopback is all the API trusts, and tools live there too (findings R8).
  const refuse = config.server.authToken ? undefined : isOwnProcessPeer
  const listener =
    headerTimeoutMs > 0 ? guarded(app, host, port, headerTimeoutMs, refuse) : direct(app, host, port)
  const url = `http://${listener.hostname.includes(":") ? `[${listener.hostname}]` : listener.hostname}:${listener.port}`
  log.info("listening", { url, auth: Boolean(config.server.authToken), header_timeout_ms: headerTimeoutMs })
  alerts?.start()
  gate.openAfter(START_QUIET_MS)
  void gate.opened.then(() => warmUpLater(runtime))

  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS
  const drainDelayMs = options.drainDelayMs ?? config.server.drainDelay * 1000
  let stopping: Promise<void> | undefined
  return {
    app,
    runtime,
    afterStart: gate.opened,
    url,
    port: listener.port,
    shutdown: (graceMs = DEFAULT_SHUTDOWN_GRACE_MS, shutdownOptions = {}) => {
      stopping ??= (async () => {
        const started = performance.now()
        const lameDuckMs = shutdownOptions.lameDuck ? Math.min(drainDelayMs, graceMs) : 0
        log.info("shutting down", { active_runs: runs.size, grace_ms: graceMs, lame_duck_ms: lameDuckMs })
        runs.enterLameDuck()
        if (lameDuckMs > 0) await Bun.sleep(lameDuckMs)
        // Marks the runs closing (app.ts answers 503 from then on); the listener stays open, so
        // probes and clients get that answer instead of a refused or reset connection.
        // Investigations get the same grace as chats, then go back to the queue (CONTRACT §10).
        const left = Math.max(0, graceMs - (performance.now() - started))
        await Promise.all([runs.drain(left), alerts?.shutdown(left)])
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

/**
 * How long after the bind the warm-up waits for a first readiness probe. An orchestrator that
 * probes at once gets its answer before the warm-up starts; without probes it starts this much later.
 */
const START_QUIET_MS = 100

/** Opens once: by the first `/readyz` 200, or by the timer. */
function startGate(): { opened: Promise<void>; open: () => void; openAfter: (ms: number) => void } {
  const { promise, resolve } = Promise.withResolvers<void>()
  return {
    opened: promise,
    open: () => resolve(),
    openAfter: (ms) => {
      setTimeout(resolve, ms).unref()
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
function guarded(
  app: App,
  host: string,
  port: number,
  headerTimeoutMs: number,
  refuse: HeaderGuardOptions["refuse"],
): Listener {
  // Hidden from every sandbox: behind the guard, the socket is a way in that carries no peer.
  const socketDir = mkdtempSync(join(privateSocketParent(), `dupin-http-${process.pid}-`))
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
      ...(refuse ? { refuse } : {}),
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

/** `server.header_timeout` when unset, on an address other machines can reach. */
export const DEFAULT_HEADER_TIMEOUT_S = 10

/**
 * The header deadline for a listener on `host`, in seconds (0: no header guard). Unset, the guard
 * is on only where other machines can connect. Its CPU is small (2.2 % of the server's JS time at
 * 50 clients in a --cpu-prof of serve, 2026-11-26), but on loopback it buys nothing a local
 * process cannot get around (complete, idle connections hold as much), it adds a hop of latency
 * per byte, and its unix socket is a way into the API that carries no peer to check: without a
 * token, own-process-refusal.ts can only tell who connected over TCP. Set explicitly, it applies
 * on any address.
 */
export function headerTimeoutFor(host: string, configured: number | undefined): number {
  return configured ?? (isLoopback(host) ? 0 : DEFAULT_HEADER_TIMEOUT_S)
}

/** Whether binding `host` only exposes the API to this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h)
}
