import { flag, intOption, type ParsedArgs, stringOption, UsageError } from "../../commands/args.ts"
import { EXIT } from "../../commands/exit.ts"
import { applyLogLevel, loadCliConfig } from "../../commands/load-config.ts"
import { writeStderr, writeStdout } from "../../commands/output.ts"
import { AbortError } from "../../errors.ts"
import { loadCases, withTags } from "../../eval/load-cases.ts"
import { DEFAULT_PATIENCE } from "../../eval/patient-model.ts"
import { markdownReport, summarize } from "../../eval/report.ts"
import type { CaseRun } from "../../eval/run-case.ts"
import { runEval } from "../../eval/runner.ts"
import { TokenCounter } from "../../llm/tokens.ts"
import { createRuntime } from "../../runtime/runtime.ts"
import { VERSION } from "../../version.ts"

/**
 * `dupin eval` (CONTRACT §12): every case through the engine door with mocked tools, scored by a
 * judge model. Fixtures are read in full before the first model call, so a broken one costs
 * nothing (exit 2); once the cases ran the exit is 0, whatever the score.
 */
export async function evalCommand(args: ParsedArgs): Promise<number> {
  if (args.positionals.length === 0)
    throw new UsageError("give at least one folder of eval cases: dupin eval evals/ (see: dupin eval --help)")
  applyLogLevel("WARN")
  const iterations = intOption(args, "iterations", 1, 1000) ?? 1
  const parallel = intOption(args, "parallel", 1, 64) ?? 4
  const timeout = intOption(args, "timeout", 1, 86_400) ?? 300
  const tags = split(stringOption(args, "tags"))
  const all = loadCases(args.positionals)
  const cases = withTags(all, tags)
  if (cases.length === 0) throw new UsageError(`no case has any of the tags ${tags.join(", ")}`)

  const configPath = stringOption(args, "config")
  const names = split(stringOption(args, "model"))
  const configs = (names.length ? names : [undefined]).map((model) => loadCliConfig({ configPath, model }))
  const models = configs.map((config) => createRuntime(config).model())
  const judgeName = stringOption(args, "judge")
  const judge = judgeName ? createRuntime(loadCliConfig({ configPath, model: judgeName })).model() : models[0]
  const config = configs[0]
  if (!judge || !config) throw new UsageError("no model to evaluate: pass --model or set MODEL")

  // The tokenizer parses its ranks once per encoding, on the CPU: done here, not inside the
  // first cases' latency.
  await Promise.all(models.map((m) => TokenCounter.forModel(m.info.id).catch(() => undefined)))
  const controller = new AbortController()
  const stop = () => controller.abort()
  process.once("SIGINT", stop)
  const started = new Date()
  writeStderr(
    `dupin eval: ${plural(cases.length, "case")} × ${plural(models.length, "model")} × ${plural(iterations, "iteration")}, judge ${judge.name}, ${parallel} at a time\n`,
  )
  try {
    const result = await runEval(
      {
        cases,
        models,
        judge,
        iterations,
        parallel,
        deadlineMs: timeout * 1000,
        patience: DEFAULT_PATIENCE,
        engine: {
          maxSteps: config.maxSteps,
          context: config.context,
          limits: config.toolLimits,
          enabledPrompts: config.enabledPrompts,
          systemPromptAdditions: config.systemPromptAdditions,
        },
      },
      controller.signal,
      (run, done, total) => writeStderr(progressLine(run, done, total)),
    )
    if (result.interrupted) {
      writeStderr(
        `dupin eval: interrupted after ${result.runs.length} of ${result.planned} runs; the report covers those\n`,
      )
    }
    if (flag(args, "json")) {
      const report = {
        dupin_version: VERSION,
        started_at: started.toISOString(),
        duration_ms: Date.now() - started.getTime(),
        models: models.map((m) => m.name),
        judge: judge.name,
        iterations,
        tags,
        summary: summarize(result.runs),
        runs: result.runs,
        skipped: result.skipped,
        interrupted: result.interrupted,
      }
      await writeStdout(JSON.stringify(report, null, 2))
    } else await writeStdout(markdownReport(result, judge.name))
    return result.interrupted ? EXIT.interrupted : EXIT.ok
  } catch (error) {
    if (error instanceof AbortError) return EXIT.interrupted
    throw error
  } finally {
    process.off("SIGINT", stop)
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`
}

function split(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
}

function progressLine(run: CaseRun, done: number, total: number): string {
  const width = String(total).length
  const misses = run.mock_misses.length ? `, ${run.mock_misses.length} without mock` : ""
  const retries = run.rate_limit_retries ? `, ${run.rate_limit_retries} rate-limit waits` : ""
  return `[${String(done).padStart(width)}/${total}] ${run.status.padEnd(7)} ${run.case} (${run.model} #${run.iteration}) ${(run.latency_ms / 1000).toFixed(1)} s, ${run.tool_calls} tool calls${misses}${retries}\n`
}
