import { AbortError } from "../errors.ts"
import type { ChatModel } from "../llm/types.ts"
import type { EvalCase } from "./case-file.ts"
import type { Patience } from "./patient-model.ts"
import { type CaseRun, type EngineSettings, runCase } from "./run-case.ts"

export type EvalPlan = {
  cases: readonly EvalCase[]
  models: readonly ChatModel[]
  /** Scores every model's answers; the first model unless one is named. */
  judge: ChatModel
  iterations: number
  /** Runs in flight at once, over all models. */
  parallel: number
  deadlineMs: number
  patience: Patience
  engine: EngineSettings
}

export type Skipped = { case: string; reason: string }

/** `interrupted`: the eval was stopped; `runs` holds the ones that finished before it. */
export type EvalResult = { runs: CaseRun[]; skipped: Skipped[]; interrupted: boolean; planned: number }

/**
 * Every case × model × iteration, `parallel` at a time; `onRun` sees each as it finishes. Jobs go
 * case by case with the models interleaved, so with several providers no single one takes all the
 * load at once. Rows come back in a stable order (model, case, iteration), whatever finished first.
 * Aborted, it starts no more runs, lets those in flight end (they stop at once) and resolves with
 * the finished ones, so an interrupted eval still reports what it measured.
 */
export async function runEval(
  plan: EvalPlan,
  signal: AbortSignal,
  onRun?: (run: CaseRun, done: number, total: number) => void,
): Promise<EvalResult> {
  const skipped = plan.cases.flatMap((c) => (c.skip ? [{ case: c.id, reason: c.skip }] : []))
  const jobs = plan.cases
    .filter((c) => !c.skip)
    .flatMap((evalCase) =>
      Array.from({ length: plan.iterations }, (_, n) => n + 1).flatMap((iteration) =>
        plan.models.map((model) => ({ evalCase, iteration, model })),
      ),
    )
  const runs: CaseRun[] = []
  let next = 0
  const worker = async () => {
    while (next < jobs.length && !signal.aborted) {
      const job = jobs[next++]
      if (!job) break
      const run = await runCase(
        job.evalCase,
        job.iteration,
        {
          model: job.model,
          judge: plan.judge,
          engine: plan.engine,
          deadlineMs: plan.deadlineMs,
          patience: plan.patience,
        },
        signal,
      ).catch((error: unknown) => {
        if (error instanceof AbortError) return null
        throw error
      })
      if (!run) break
      runs.push(run)
      onRun?.(run, runs.length, jobs.length)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.parallel, jobs.length)) }, worker))
  const modelOrder = plan.models.map((m) => m.name)
  const caseOrder = plan.cases.map((c) => c.id)
  runs.sort(
    (a, b) =>
      modelOrder.indexOf(a.model) - modelOrder.indexOf(b.model) ||
      caseOrder.indexOf(a.case) - caseOrder.indexOf(b.case) ||
      a.iteration - b.iteration,
  )
  return { runs, skipped, interrupted: signal.aborted, planned: jobs.length }
}
