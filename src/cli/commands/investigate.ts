/**
 * `dupin investigate FILE|-`: the alert face in the terminal. The same investigation as
 * `POST /api/alerts/alertmanager` starts (prompt, engine, approval off), run here and now with
 * `ask`'s progress lines on stderr; the analysis on stdout, or with `--json` the record as
 * `GET /api/investigations/{id}` returns it. Nothing is queued, stored or delivered.
 */

import { parseAlertFile } from "../../alerts/alertmanager.ts"
import { investigate } from "../../alerts/investigate.ts"
import { flag, type ParsedArgs, UsageError } from "../../commands/args.ts"
import { EXIT } from "../../commands/exit.ts"
import { applyLogLevel, loadCliConfig } from "../../commands/load-config.ts"
import { writeStderr, writeStderrRaw, writeStdout, writeStdoutRaw } from "../../commands/output.ts"
import { processEnv } from "../../config/env.ts"
import { errorMessage, RequestError } from "../../errors.ts"
import { createRuntime } from "../../runtime/runtime.ts"
import { type Investigation, investigationWire } from "../../store/investigation.ts"
import { AnswerView } from "../ask/answer-view.ts"
import { Interrupts } from "../ask/interrupts.ts"
import { engineFlags } from "../ask/options.ts"
import { Progress } from "../ask/progress.ts"
import { style } from "../render/style.ts"
import { terminalFacts } from "../render/terminal.ts"

/** An alert file larger than this is no Alertmanager body. */
const MAX_INPUT_BYTES = 20_000_000

export async function investigateCommand(args: ParsedArgs): Promise<number> {
  const source = args.positionals[0]
  if (source === undefined || args.positionals.length > 1) {
    throw new UsageError("give one alert file, or - for stdin: dupin investigate alert.json")
  }
  const json = flag(args, "json")
  applyLogLevel("WARN")
  const text = await readInput(source)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${source === "-" ? "stdin" : source} is not JSON: ${errorMessage(error)}`)
  }
  let alerts: ReturnType<typeof parseAlertFile>
  try {
    alerts = parseAlertFile(parsed)
  } catch (error) {
    if (!(error instanceof RequestError)) throw error
    const where = (error.errors ?? []).map((e) => `${e.path} ${e.message}`).join("; ")
    throw new UsageError(`${error.message}${where ? ` ${where}` : ""}`)
  }
  if (alerts.length === 0) throw new UsageError("the input holds no firing alert")

  // The same flags as `dupin ask`, read once the input is known to be alerts; --model picks the
  // engine here, over alerts.model, and is no config override. Like ask's, it takes any
  // provider/model id when the config has no modelList.
  const flags = engineFlags(args)
  const config = loadCliConfig({
    configPath: flags.configPath,
    maxSteps: flags.maxSteps,
    toolsetFiles: flags.toolsetFiles,
    enableBash: flags.bash,
  })
  const runtime = createRuntime(config)
  const llm = runtime.engine(flags.model ?? config.alerts.model, { providerId: true })
  const seen = terminalFacts({
    env: processEnv(),
    noColor: flags.noColor,
    stdout: process.stdout,
    stderr: process.stderr,
  })
  const facts = json ? { ...seen, render: false, streamAnswer: false } : { ...seen, streamAnswer: false }
  const answer = new AnswerView({ facts, style: style(facts.render), write: writeStdoutRaw })
  const progress = new Progress({ write: writeStderrRaw, facts, answer })
  const interrupts = new Interrupts({
    write: writeStderr,
    exit: () => process.exit(EXIT.interrupted),
    interactive: false,
  })
  interrupts.install()

  const records: Record<string, unknown>[] = []
  let failed = false
  for (const alert of alerts) {
    if (alerts.length > 1) writeStderr(`Investigating ${alert.labels.alertname ?? alert.fingerprint}…\n`)
    const record: Investigation = {
      id: `local-${crypto.randomUUID().slice(0, 8)}`,
      status: "running",
      fingerprint: alert.fingerprint,
      alert,
      createdAt: Date.now(),
      startedAt: Date.now(),
      finishedAt: null,
      attempts: 1,
      result: null,
      error: null,
      deliveries: [],
    }
    const controller = interrupts.begin()
    progress.begin()
    try {
      record.result = await investigate(runtime, llm, alert, {
        signal: controller.signal,
        observe: (event) => progress.onEvent(event),
        onToolCall: (call) => progress.onToolCall(call),
      })
      record.status = "done"
    } catch (error) {
      record.status = "failed"
      record.error = errorMessage(error)
      failed = true
    } finally {
      progress.end()
      interrupts.end()
      record.finishedAt = Date.now()
    }
    records.push(investigationWire(record))
    if (json) continue
    if (record.status === "done") await answer.finish(record.result?.analysis ?? "")
    else writeStderr(`dupin: the investigation failed: ${record.error}\n`)
  }
  if (json) await writeStdout(JSON.stringify(records.length === 1 ? records[0] : records, null, 2))
  return failed ? EXIT.runtime : EXIT.ok
}

async function readInput(source: string): Promise<string> {
  const file = source === "-" ? Bun.stdin : Bun.file(source)
  if (source !== "-" && !(await file.exists())) throw new UsageError(`cannot read ${source}: no such file`)
  const bytes = new Uint8Array(await file.arrayBuffer())
  if (bytes.length > MAX_INPUT_BYTES)
    throw new UsageError(`${source} is larger than ${MAX_INPUT_BYTES} bytes`)
  return new TextDecoder().decode(bytes)
}
