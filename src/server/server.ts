import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Config } from "../config/config.ts"
import { ConfigError, errorMessage } from "../errors.ts"
import { log } from "../log.ts"
import { type App, createApp } from "./app.ts"
import { type HeaderGuard, listenWithHeaderGuard } from "./header-guard.ts"
import { ActiveRuns } from "./runs.ts"
import { ServerMetrics } from "./telemetry.ts"

export type StartOptions = {
  host?: string
  port?: number
  /** Allows a non-loopback address without an auth token. */
  insecure?: boolean
  pingIntervalMs?: number
  /** Milliseconds a request's header block may take to arrive (slowloris); default 10 s. */
  headerTimeoutMs?: number
}

export type RunningServer = {
  app: App
  /** `http://host:port`, with the port actually bound (port 0 picks one). */
  url: string
  port: number
  /**
   * Graceful shutdown: stop accepting connections, let running chats finish within `graceMs`,
   * then end the rest (streams get an `error` event) and close.
   */
  shutdown(graceMs?: number): Promise<void>
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000
export const DEFAULT_HEADER_TIMEOUT_MS = 10_000
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
  config.toolExecutor()
  const runs = new ActiveRuns()
  const app = createApp(config, {
    runs,
    metrics: new ServerMetrics(),
    ...(options.pingIntervalMs ? { pingIntervalMs: options.pingIntervalMs } : {}),
  })
  // The HTTP server listens on a private unix socket; the address clients use is the header guard's.
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
      headerTimeoutMs: options.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS,
      maxHeaderBytes: MAX_HEADER_BYTES,
    })
  } catch (error) {
    server.stop(true)
    rmSync(socketDir, { recursive: true, force: true })
    throw new ConfigError(`Could not listen on ${host}:${port}: ${errorMessage(error)}`, "server.port")
  }
  const url = `http://${guard.hostname.includes(":") ? `[${guard.hostname}]` : guard.hostname}:${guard.port}`
  log.info("listening", { url, auth: Boolean(config.server.authToken) })

  let stopping: Promise<void> | undefined
  return {
    app,
    url,
    port: guard.port,
    shutdown: (graceMs = DEFAULT_SHUTDOWN_GRACE_MS) => {
      stopping ??= (async () => {
        log.info("shutting down", { active_runs: runs.size, grace_ms: graceMs })
        // Stop accepting; requests in flight continue (their guarded connections stay open).
        guard.stopAccepting()
        const closed = server.stop(false)
        await runs.drain(graceMs)
        await Promise.race([closed, Bun.sleep(1000)])
        await server.stop(true)
        await guard.close(1000)
        rmSync(socketDir, { recursive: true, force: true })
      })()
      return stopping
    },
  }
}

/** Whether binding `host` only exposes the API to this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h)
}
