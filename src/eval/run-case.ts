import { readFileSync } from "node:fs"
import { basename } from "node:path"
import { buildInitialAskMessages, buildUserMessage } from "../agent/prompt/messages.ts"
import { type PromptSection, resolveSections } from "../agent/prompt/sections.ts"
import { ToolCallingLLM } from "../agent/tool-calling-llm.ts"
import type { ContextSettings } from "../context/limits.ts"
import { AbortError, errorMessage } from "../errors.ts"
import type { ChatMessage, ChatModel } from "../llm/types.ts"
import { ToolExecutor } from "../tool/executor.ts"
import type { ToolLimits } from "../tool/tool.ts"
import type { EvalCase } from "./case-file.ts"
import { caseToolsets } from "./case-toolsets.ts"
import { Deadline } from "./deadline.ts"
import { judgeAnswer } from "./judge.ts"
import type { MockMiss } from "./mock-tool.ts"
import { type Patience, PatientModel } from "./patient-model.ts"

/** pass/fail are the judge's; timeout is the case's deadline; error is a provider or judge fault. */
export type RunStatus = "pass" | "fail" | "timeout" | "error"

/** One case, one model, one iteration: a row of the JSON report. */
export type CaseRun = {
  case: string
  model: string
  iteration: number
  tags: string[]
  status: RunStatus
  latency_ms: number
  tokens: number
  cost: number
  llm_calls: number
  tool_calls: number
  mock_misses: MockMiss[]
  rate_limit_retries: number
  answer: string | null
  judge: { pass: boolean; reasoning: string } | null
  /** The judge's tokens, apart: they are the eval's cost, not the agent's. */
  judge_tokens: number
  error: string | null
}

/** The engine settings a face takes from config: the same ones `ask` runs with. */
export type EngineSettings = {
  maxSteps: number
  context: ContextSettings | undefined
  limits: ToolLimits
  enabledPrompts?: ReadonlySet<PromptSection> | undefined
  systemPromptAdditions?: string | undefined
}

export type RunSetup = {
  model: ChatModel
  judge: ChatModel
  engine: EngineSettings
  /** The agent's time for one case; the judge gets as long again. */
  deadlineMs: number
  patience: Patience
}

/**
 * Runs one case through the engine door with mocked tools, then has the judge score the answer.
 * Only the question (and the case's history and files) reaches the agent; `expected_output` goes
 * to the judge alone. Throws AbortError only when `signal` (the whole eval) is aborted.
 */
export async function runCase(
  evalCase: EvalCase,
  iteration: number,
  setup: RunSetup,
  signal: AbortSignal,
): Promise<CaseRun> {
  const misses: MockMiss[] = []
  const deadline = new Deadline(setup.deadlineMs)
  const model = new PatientModel(setup.model, setup.patience, (ms) => deadline.extend(ms))
  const judge = new PatientModel(setup.judge, setup.patience)
  const executor = new ToolExecutor(caseToolsets(evalCase, misses), { limits: setup.engine.limits, env: {} })
  const llm = new ToolCallingLLM({
    model,
    toolExecutor: executor,
    maxSteps: setup.engine.maxSteps,
    ...(setup.engine.context ? { context: setup.engine.context } : {}),
  })
  const row: CaseRun = {
    case: evalCase.id,
    model: setup.model.name,
    iteration,
    tags: evalCase.tags,
    status: "error",
    latency_ms: 0,
    tokens: 0,
    cost: 0,
    llm_calls: 0,
    tool_calls: 0,
    mock_misses: misses,
    rate_limit_retries: 0,
    answer: null,
    judge: null,
    judge_tokens: 0,
    error: null,
  }
  const started = performance.now()
  // Rate-limit waits are left out of the latency, as they are out of the deadline.
  const elapsed = () => Math.round(performance.now() - started - deadline.extended)
  try {
    const messages = await opening(evalCase, executor, setup.engine)
    const outcome = await llm.run(messages, { signal: AbortSignal.any([signal, deadline.signal]) })
    row.latency_ms = elapsed()
    row.tokens = outcome.metadata.costs.total_tokens
    row.cost = outcome.metadata.costs.total_cost
    row.llm_calls = outcome.metadata.costs.num_llm_calls
    row.tool_calls = outcome.toolCalls.length
    row.answer = outcome.answer
  } catch (error) {
    row.latency_ms = elapsed()
    row.rate_limit_retries = model.retries
    if (signal.aborted) throw new AbortError()
    if (deadline.signal.aborted) {
      row.status = "timeout"
      row.error = `no answer within ${setup.deadlineMs / 1000} s`
    } else row.error = errorMessage(error)
    return row
  } finally {
    deadline.clear()
  }
  try {
    const answer = row.answer?.trim() ?? ""
    const verdict = answer
      ? await judgeAnswer(
          judge,
          { question: evalCase.userPrompt, expected: evalCase.expectedOutput, answer },
          AbortSignal.any([signal, AbortSignal.timeout(setup.deadlineMs)]),
        )
      : { pass: false, reasoning: "The agent gave no answer." }
    row.judge = { pass: verdict.pass, reasoning: verdict.reasoning }
    row.judge_tokens = "usage" in verdict ? verdict.usage.total_tokens : 0
    row.status = verdict.pass ? "pass" : "fail"
  } catch (error) {
    if (signal.aborted) throw new AbortError()
    row.error = `judge: ${errorMessage(error)}`
  }
  row.rate_limit_retries = model.retries + judge.retries
  return row
}

/** The conversation the agent starts from: `ask`'s opening, or the case's history plus the question. */
async function opening(
  evalCase: EvalCase,
  executor: ToolExecutor,
  engine: EngineSettings,
): Promise<ChatMessage[]> {
  const sections = resolveSections(engine.enabledPrompts)
  const input = {
    initialUserPrompt: evalCase.userPrompt,
    toolExecutor: executor,
    sections,
    clusterName: evalCase.clusterName,
    systemPromptAdditions: engine.systemPromptAdditions,
    filePaths: evalCase.includeFiles,
    ...(evalCase.now ? { now: evalCase.now } : {}),
  }
  const history = evalCase.conversationHistory
  if (!history) return buildInitialAskMessages(input)
  await executor.ensureReady()
  const files = evalCase.includeFiles.map((path) => ({
    name: basename(path),
    content: readFileSync(path, "utf8"),
  }))
  return [...history, buildUserMessage(input, sections, files)]
}
