import { Elysia } from "elysia"
import type { AlertService } from "../alerts/service.ts"
import type { Config } from "../config/config.ts"
import { RequestError } from "../errors.ts"
import { log } from "../log.ts"
import { createRuntime, type Runtime } from "../runtime/runtime.ts"
import { settledContainmentInfo } from "../tool/containment/index.ts"
import { ApprovalSigner } from "./approvals.ts"
import { authenticate, OPEN_PATHS } from "./auth.ts"
import { readJsonBody } from "./body.ts"
import { parseChatRequest, withoutNulls } from "./chat-request.ts"
import { errorResponse, jsonResponse } from "./errors.ts"
import { modelAvailability } from "./model-availability.ts"
import { refuseOwnProcess } from "./own-process-refusal.ts"
import type { ChatDeps } from "./routes/chat.ts"
import { consoleAsset, consoleIndex, isConsolePath } from "./routes/console.ts"
import { info, Readiness, readyz } from "./routes/ops.ts"
import { ActiveRuns, ServerShuttingDown } from "./runs.ts"
import { ServerMetrics } from "./telemetry.ts"

export type AppOptions = {
  /** Shared with `startServer`, whose shutdown drains them. */
  runs?: ActiveRuns
  metrics?: ServerMetrics
  /** Milliseconds between `: ping` comments on an idle stream (default 15 s). */
  pingIntervalMs?: number
  /** Clock for approval signatures (tests of expiry). */
  now?: () => number
  /** The runtime the routes run on; built from the config when not given (tests, library). */
  runtime?: Runtime
  /** Serve the web console at `/` (default `server.console`; `serve --no-console` turns it off). */
  console?: boolean
  /** Alert investigations (CONTRACT §10), when `alerts.enabled`. */
  alerts?: AlertService
  /** Called with every `/readyz` that answers 200. */
  onReady?: () => void
}

type RequestInfo = { start: number; model?: string; status?: number }

/**
 * The routes below and their methods: a known path asked with another method is a 405, not a 404,
 * and a request refused before routing (a 401) is still counted under its route in metrics. Only
 * these paths become metric labels, so a scanner cannot grow the label set.
 */
const ROUTE_METHODS: ReadonlyMap<string, readonly string[]> = new Map([
  ["/healthz", ["GET"]],
  ["/readyz", ["GET"]],
  ["/api/model", ["GET"]],
  ["/api/info", ["GET"]],
  ["/metrics", ["GET"]],
  ["/api/chat", ["POST"]],
  ["/api/alerts/alertmanager", ["POST"]],
  ["/api/investigations", ["GET"]],
  ["/api/agui", ["POST"]],
  ["/api/agui/chat", ["POST"]],
])

/**
 * The HTTP API (CONTRACT §5) as an Elysia app. Listen with `app.listen(...)`, or use
 * `startServer` for the CLI's checks and graceful shutdown.
 */
export function createApp(config: Config, options: AppOptions = {}) {
  const runtime = options.runtime ?? createRuntime(config)
  const runs = options.runs ?? new ActiveRuns()
  const metrics = options.metrics ?? new ServerMetrics()
  const signer = new ApprovalSigner({
    secret: config.server.approvalSecret,
    ttlSeconds: config.server.approvalTtl,
    ...(options.now ? { now: options.now } : {}),
  })
  // Prerequisite checks spawn processes (~20 ms of synchronous spawning): start them on the loop's
  // next turn, so `startServer` binds the port first and a probe that came meanwhile is answered.
  let readiness: Readiness | undefined
  const ready = () => {
    readiness ??= new Readiness(runtime)
    return readiness
  }
  setImmediate(ready)
  const requests = new WeakMap<Request, RequestInfo>()
  const consoleOn = options.console ?? config.server.console

  const chatDeps: ChatDeps = {
    runtime,
    signer,
    metrics,
    runs,
    pingIntervalMs: options.pingIntervalMs,
    noteModel: (request: Request, model: string) => {
      const entry = requests.get(request)
      if (entry) entry.model = model
    },
  }
  const agui = async (body: unknown, request: Request) => {
    const input = (await import("./agui/input.ts")).parseRunAgentInput(body)
    const deps = { ...chatDeps, authToken: config.server.authToken }
    return (await import("./agui/route.ts")).handleAgui(input, request, deps)
  }

  return (
    new Elysia({
      serve: {
        // Our own reader enforces max_body_bytes with the contract's 413 body: by Content-Length
        // before reading, and by count while reading (chunked bodies, lying clients). Bun's cap
        // would answer a larger declared length itself, with a bare 413 and no body, so it is
        // out of the way; nothing is buffered before the reader asks, and a 413 closes the
        // connection rather than draining the rest.
        maxRequestBodySize: Number.MAX_SAFE_INTEGER,
        // A connection with no bytes either way for 30 s is closed (Elysia's default, stated here
        // because it is a bound we rely on: SSE pings every 15 s keep streams under it). Header
        // bytes dribbled slower than that are the header guard's to stop (header-guard.ts).
        idleTimeout: 30,
      },
    })
      // Auth runs before routing and body parsing: an anonymous client costs nothing.
      .onRequest(({ request, server }) => {
        requests.set(request, { start: performance.now() })
        const path = pathOf(request)
        // Draining (SIGTERM): only the probes still answer; the rest is a 503 that closes the
        // connection, so keep-alive clients reconnect to another instance.
        if (runs.closing && !OPEN_PATHS.has(path)) throw new ServerShuttingDown()
        if (OPEN_PATHS.has(path)) return
        // The console page needs no token: it asks for one when the API answers 401 (CONTRACT §9).
        // Turned off, its paths are a 404 for everyone, token or not.
        if (isConsolePath(path)) return
        authenticate(request.headers, config.server.authToken)
        if (!config.server.authToken) refuseOwnProcess(server, request)
      })
      // Every body is read as JSON under the byte cap, whatever its Content-Type says.
      .onParse(async ({ request }) => {
        const body = await readJsonBody(request, config.server.maxBodyBytes)
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          throw new RequestError("The request body must be a JSON object.", { kind: "schema" })
        }
        return withoutNulls(body as Record<string, unknown>)
      })
      .onError(({ code, error, request }) => {
        const response =
          code === "NOT_FOUND"
            ? (wrongMethod(request) ?? errorResponse(error, code))
            : errorResponse(error, code)
        // onAfterResponse does not see this Response, so the access log takes the status from here.
        const entry = requests.get(request)
        if (entry) entry.status = response.status
        return response
      })
      .onAfterResponse(({ request, set, responseValue, route }) => {
        const entry = requests.get(request)
        const status =
          entry?.status ??
          (responseValue instanceof Response ? responseValue.status : Number(set.status ?? 200))
        const seconds = entry ? (performance.now() - entry.start) / 1000 : 0
        const path = pathOf(request)
        const routeLabel = route || (ROUTE_METHODS.has(path) ? path : "unmatched")
        metrics.requests.inc({ method: request.method, route: routeLabel, status: String(status) })
        metrics.latency.observe(seconds, { method: request.method, route: routeLabel })
        // No headers, no body: tokens and questions stay out of the log.
        log.info("request", {
          method: request.method,
          path,
          status,
          duration_ms: Math.round(seconds * 1000),
          ...(entry?.model ? { model: entry.model } : {}),
        })
      })
      .get("/healthz", () => closingWhenDraining(jsonResponse(200, { status: "ok" }), runs))
      .get("/readyz", () => {
        const response = readyz(ready(), runs)
        if (response.status === 200) options.onReady?.()
        return closingWhenDraining(response, runs)
      })
      // `models` marks the ones that cannot be called (a key variable unset), and says why.
      .get("/api/model", () => ({ model_name: config.modelNames(), models: modelAvailability(config) }))
      .get("/api/info", async () => ({
        // Containment as detected: a request in the first ms after the bind waits for the probes.
        ...info(runtime, ready(), await settledContainmentInfo()),
        ...(options.alerts ? { alerts: await options.alerts.info() } : {}),
      }))
      .get(
        "/metrics",
        () =>
          new Response(metrics.registry.render(), {
            headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
          }),
      )
      // No Elysia body schema: it would coerce (a string becomes a list of its characters).
      // parseChatRequest is the one type check, before any semantic one.
      .post("/api/chat", async ({ body, request }) => {
        const input = await parseChatRequest(body)
        return (await import("./routes/chat.ts")).handleChat(input, request, chatDeps)
      })
      .use(consoleRoutes(consoleOn))
      .use(options.alerts ? alertRoutes().alertRoutes(options.alerts) : new Elysia())
      // AG-UI 1.0 (CONTRACT §11): same auth, same engine, AG-UI's events. `/api/agui/chat` is
      // the same endpoint at the path HolmesGPT serves it, where Headlamp's AI Assistant posts.
      .post("/api/agui", ({ body, request }) => agui(body, request))
      .post("/api/agui/chat", ({ body, request }) => agui(body, request))
  )
}

export type App = ReturnType<typeof createApp>

/**
 * The modules of the chat, AG-UI and alert routes load with their first request (serve's warm-up
 * loads the chat route's), not before the port is bound: they bring the engine's callers and the
 * alert face. The alert routes are registered when the app is built, so theirs
 * is a synchronous load (Bun's require of an ES module), done only when alerts are on.
 */
function alertRoutes(): typeof import("./routes/alerts.ts") {
  return require("./routes/alerts.ts")
}

/** `GET /` and its assets (CONTRACT §9); nothing at all when the console is off, so `/` is a 404. */
function consoleRoutes(on: boolean) {
  const routes = new Elysia({ name: "console" })
  if (!on) return routes
  return routes
    .get("/", () => consoleIndex())
    .get("/console/:file", ({ params }) => consoleAsset(params.file))
}

/** A probe's answer during a drain closes its connection: the next one should find another instance. */
function closingWhenDraining(response: Response, runs: ActiveRuns): Response {
  if (runs.draining) response.headers.set("connection", "close")
  return response
}

/** 405 with `Allow` for a known path asked with a method it does not serve (HEAD follows GET). */
function wrongMethod(request: Request): Response | undefined {
  const allowed = ROUTE_METHODS.get(pathOf(request))
  // The method is served here, yet nothing matched (a request target Elysia does not route, such
  // as `/readyz#x`): a 404, not "GET is not allowed here: use GET".
  if (!allowed || allowed.includes(request.method)) return undefined
  if (request.method === "HEAD" && allowed.includes("GET")) return undefined
  return jsonResponse(
    405,
    { detail: `${request.method} is not allowed here: use ${allowed.join(", ")}.`, error_code: 4050 },
    { allow: allowed.join(", ") },
  )
}

/**
 * The request's path. Behind the header guard the server listens on a unix socket, where a request
 * without a Host header (HTTP/1.0 probes) has a bare path for its URL.
 */
function pathOf(request: Request): string {
  const path = rawPathOf(request)
  // Elysia routes `/readyz/` as `/readyz`: so do auth's open paths, 405s and metric labels.
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path
}

function rawPathOf(request: Request): string {
  const url = URL.parse(request.url, "http://localhost")
  if (url) return url.pathname
  // A Host header the URL parser refuses (`[::1`, `x:99999`, `%zz`): Bun still builds the URL
  // from it. The path is what follows the authority; the request is answered like any other.
  const target = request.url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, "")
  const path = target.replace(/[?#].*$/s, "")
  return path.startsWith("/") ? path : `/${path}`
}
