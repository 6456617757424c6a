import { flag, intOption, noPositionals, type ParsedArgs, stringOption } from "../commands/args.ts"
import { EXIT } from "../commands/exit.ts"
import { applyLogLevel, loadCliConfig } from "../commands/load-config.ts"
import { writeStderr } from "../commands/output.ts"
import type { Config } from "../config/config.ts"
import { requireServerSecrets } from "../config/settings.ts"
import { ConfigError, errorMessage } from "../errors.ts"
import { log, setLogSink } from "../log.ts"
import { makeSqliteFolder } from "../store/open.ts"
import { type ContainmentInfo, settledContainmentInfo } from "../tool/containment/index.ts"
import { containmentLine } from "../tool/containment/report.ts"
import { type RunningServer, startServer } from "./index.ts"
import { type ModelReadiness, modelReadiness } from "./routes/ops.ts"
import { PortInUseError } from "./server.ts"
import { logStart, logToolsetStatus } from "./start-report.ts"

/**
 * `dupin serve`: the HTTP face's own command. It lives with the server so that `cli/` never imports
 * `server/`; `src/main.ts` puts it into the command table. The config is parsed once here; toolset prerequisites run in the background after
 * the port is bound, so nothing slow precedes listening; `/readyz` is 200 once the toolsets are
 * built and a configured model can be called.
 * SIGTERM drains lame duck first (server.drain_delay: /readyz 503 while requests are still served),
 * then running chats finish and it exits 0; Ctrl+C skips the lame duck; a second Ctrl+C exits at once.
 */
export async function serveCommand(args: ParsedArgs): Promise<number> {
  noPositionals(args, "serve")
  applyLogLevel("INFO")
  setLogSink(stderrLines())
  // Containment's probes (~20 ms of bwrap starts) answer while the toolsets and routes are built.
  const config = loadCliConfig({ configPath: stringOption(args, "config"), containmentInBackground: true })
  // Read here, not at load (CONTRACT §4): an unset `{{ env.X }}` in a server secret stops `serve`
  // with one line naming the key and X (exit 2), and never `ask` or `models`.
  requireServerSecrets(config.server)
  requireAlertsModel(config)
  requireStoreFolder(config)
  const host = stringOption(args, "host")
  const port = intOption(args, "port", 0, 65535)
  let server: RunningServer
  try {
    server = startServer(config, {
      ...(host !== undefined ? { host } : {}),
      ...(port !== undefined ? { port } : {}),
      insecure: flag(args, "insecure"),
      ...(flag(args, "no-console") ? { console: false } : {}),
    })
  } catch (error) {
    // A port in use is a runtime failure (CONTRACT §2: exit 1), told in one line that names the
    // port and what to do; it is neither a config error nor an unexpected one.
    if (!(error instanceof PortInUseError)) throw error
    writeStderr(`dupin: ${error.message}\n`)
    return EXIT.runtime
  }

  logModelProblems(modelReadiness(config))
  // Containment is detected while the server starts (load-config.ts): the start line names its
  // level, so both are told once the probes have answered, a few ms after the bind.
  void settledContainmentInfo().then((info) => {
    logStart(config, server.url)
    logContainment(info)
  })
  // Each on a turn of the event loop of its own (a probe that came with the bind is answered
  // first; their spawns take ~10 ms each): the read-only view's sandbox starts now, not in the
  // first conversation's first tool call, and the toolsets' checks run. Both are processes, so
  // they run beside the warm-up (warm-up.ts), which waits for the first probe (server.ts).
  setImmediate(() => {
    server.runtime.warmToolSandbox()
    setImmediate(() => void logToolsetStatus(server.runtime))
  })

  await new Promise<void>((resolve) => {
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) {
        if (signal === "SIGINT") process.exit(EXIT.interrupted)
        return
      }
      stopping = true
      log.info("signal received", { signal })
      server.shutdown(undefined, { lameDuck: signal === "SIGTERM" }).then(resolve, (error: unknown) => {
        log.error("shutdown failed", { error: errorMessage(error) })
        resolve()
      })
    }
    process.on("SIGTERM", () => stop("SIGTERM"))
    process.on("SIGINT", () => stop("SIGINT"))
  })
  return EXIT.ok
}

/**
 * The SQLite store's folder, made and checked writable at start: one dupin cannot use is a config
 * error (exit 2), not an alert intake left answering 503. Only the folder is touched before the
 * port is held; the file is opened after (alerts/service.ts).
 */
function requireStoreFolder(config: Config): void {
  const store = config.store
  if (!config.alerts.enabled || store.engine !== "sqlite") return
  try {
    makeSqliteFolder(store.path)
  } catch (error) {
    const where = config.configFile ? `${config.configFile}: ` : ""
    throw new ConfigError(
      `${where}store.path: cannot create ${store.path} (${errorMessage(error)}). Set store.path to a file in a folder dupin can write, or store.url.`,
      "store.path",
    )
  }
}

/**
 * `alerts.model` names a modelList key: one that names none is a config error told at start
 * (exit 2), not an alert intake left answering 503. Without a modelList any provider id goes.
 */
function requireAlertsModel(config: Config): void {
  const name = config.alerts.model
  if (!config.alerts.enabled || name === undefined || !config.modelList) return
  if (config.modelNames().includes(name)) return
  const where = config.configFile ? `${config.configFile}: ` : ""
  throw new ConfigError(
    `${where}alerts.model: "${name}" is not a model of this config. Available models: ${config.modelNames().join(", ")}.`,
    "alerts.model",
  )
}

/** Says at start what keeps a model from being called; `/readyz` is 503 while none can be. */
function logModelProblems(readiness: ModelReadiness): void {
  if (readiness.problems.length === 0 && readiness.error) log.warn(readiness.error)
  for (const { model, problem } of readiness.problems)
    log.warn(`model ${model} cannot be called: ${problem}`, { model })
}

/**
 * Says once, at start, how tools are contained; degraded containment is a warning an operator
 * must see in the journal, and `required` on a host that cannot contain is an error.
 */
function logContainment(info: ContainmentInfo): void {
  const fields = {
    containment: info.level,
    mechanism: info.mechanism,
    mode: info.mode,
    warnings: info.warnings,
  }
  if (info.refusal) log.error(info.refusal, fields)
  else if (info.warnings.length > 0) log.warn(containmentLine(info), fields)
  else log.info(containmentLine(info), fields)
}

/**
 * serve's log lines, one write each, in order, through Bun's own writer on fd 2: process.stderr's
 * stream costs 6-18 ms of the start to set up at the first line. Flushed per line, so the journal
 * has each line as it happens.
 */
function stderrLines(): (line: string) => void {
  const out = Bun.stderr.writer()
  return (line) => {
    out.write(`${line}\n`)
    void out.flush()
  }
}
