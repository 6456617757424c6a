import { DEFAULT_MAX_STEPS } from "../config/settings.ts"
import { type ContextSettings, DEFAULT_CONTEXT_SETTINGS } from "../context/limits.ts"
import { ContextWindow } from "../context/window.ts"
import { AbortError, ModelError } from "../errors.ts"
import { TokenCounter } from "../llm/tokens.ts"
import type {
  AssistantMessage,
  ChatMessage,
  ChatModel,
  ResponseFormat,
  ToolCall,
  ToolMessage,
} from "../llm/types.ts"
import type { ToolExecutor } from "../tool/executor.ts"
import { Accounting } from "./accounting.ts"
import type { ApprovalMode, FrontendTools } from "./approval.ts"
import type { ToolDecision } from "./decisions.ts"
import type { EngineEvent, FollowUpAction, StopReason } from "./events.ts"
import { applyDecisions } from "./resume.ts"
import { RunTools } from "./run-tools.ts"
import { completeStep } from "./streamed-completion.ts"
import { type FinishedCall, runToolCalls, type StepContext, stepBounds } from "./tool-step.ts"

export type AgentOptions = {
  model: ChatModel
  executor: ToolExecutor
  /** The conversation so far, starting with the system message, ending with the new user message. */
  messages: ChatMessage[]
  maxSteps?: number
  approval?: ApprovalMode
  signal?: AbortSignal
  responseFormat?: ResponseFormat
  /** Checks a final answer (structured output); returns why it is invalid, or undefined. */
  validateAnswer?: (answer: string, signal: AbortSignal) => string | undefined | Promise<string | undefined>
  followUpActions?: FollowUpAction[] | null
  context?: ContextSettings
  /** Tools the client executes; a call to one pauses the run like a call waiting for approval. */
  frontendTools?: FrontendTools
  /** Decisions for the calls left pending in `messages` by an earlier `approval_required`. */
  decisions?: readonly ToolDecision[]
  /** A message appended after the decided tool results (a follow-up's new question). */
  followUp?: ChatMessage
  /** Sees each call the model asks for, with its arguments, before its `start_tool_calling` (the CLI shows them). */
  onToolCall?: (call: ToolCall) => void
  /** Yield `ai_message_delta` events while the model writes (the provider call streams). */
  streamText?: boolean
}

/**
 * The agent loop: call the model, run the tools it asks for, feed the results back, until it
 * answers. Yields the spec's events; the last one is `ai_answer_end` or `approval_required`, and
 * the return value says why the run stopped, so consumers need not infer it from that event.
 * Provider and abort failures throw (ModelError, AbortError); tool failures never do.
 */
export async function* runAgent(options: AgentOptions): AsyncGenerator<EngineEvent, StopReason> {
  const { model, executor } = options
  const signal = options.signal ?? new AbortController().signal
  const maxSteps = Math.max(1, options.maxSteps ?? DEFAULT_MAX_STEPS)
  const approval = options.approval ?? { kind: "off" }
  const settings = options.context ?? DEFAULT_CONTEXT_SETTINGS

  // The first request does not wait for the prerequisite checks: a toolset still being checked is
  // offered, and a call to its tools waits for its check (ToolExecutor.run).
  await executor.startChecks(signal)
  const counter = await TokenCounter.forModel(model.info.id)
  // A history from outside can be megabytes: counted here a slice at a time, so the loop's
  // synchronous tallies find it cached (a window's worth exactly, the rest estimated).
  await counter.prime(options.messages, model.info.contextWindow * 8, signal)
  // What this run offers and has loaded, over the shared executor: past the tool definitions
  // budget tools are held back for search_tools; a result cut to its budget is kept for
  // read_tool_output, which then joins the tools.
  const tools = RunTools.forWindow(executor, {
    contextWindow: model.info.contextWindow,
    settings,
    counter,
    ...(options.frontendTools ? { frontend: options.frontendTools.tools } : {}),
  })
  const acct = new Accounting(model.info, counter)
  // Compacts or cuts the history before each call; what it cuts goes to the run's store too.
  const window = new ContextWindow({ model, counter, settings, store: tools.store })
  try {
    return yield* steps(options, { signal, maxSteps, approval, acct, window, tools })
  } finally {
    // Removes spilled tool outputs, also when the consumer stops early or the run throws.
    await tools.dispose()
  }
}

type RunState = {
  signal: AbortSignal
  maxSteps: number
  approval: ApprovalMode
  acct: Accounting
  window: ContextWindow
  tools: RunTools
}

async function* steps(options: AgentOptions, run: RunState): AsyncGenerator<EngineEvent, StopReason> {
  const { model } = options
  const { signal, maxSteps, approval, acct, window } = run
  const history = [...options.messages]

  const toMessage = async (f: FinishedCall): Promise<ToolMessage> => {
    const cut = await run.tools.toolMessage(f.prepared.call, f.result, run.signal)
    if (cut.truncation) acct.truncations.push(cut.truncation)
    // Counted now, a slice at a time, so the next step's tally finds it (a budget's worth of text).
    await acct.counter.prime([cut.message], Number.POSITIVE_INFINITY, run.signal)
    return cut.message
  }
  const step: StepContext = {
    tools: run.tools,
    approval,
    signal,
    seen: new Set(),
    ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
    ...(options.frontendTools?.noop ? { frontendNoop: options.frontendTools.noop } : {}),
    toMessage,
    ...stepBounds(run.tools.limits),
  }

  if (options.decisions) yield* applyDecisions(history, options.decisions, step)
  if (options.followUp) history.push(options.followUp)

  let correctedFormat = false
  for (let n = 1; n <= maxSteps; n++) {
    if (signal.aborted) throw new AbortError()
    const last = n === maxSteps
    // What the model is offered this step; then the history must fit beside it.
    const tools = await run.tools.offer(history, signal)
    if (n === 1) run.tools.holdBackInstructions(history)
    const fitted = yield* window.fit(history, tools, signal)
    if (fitted.messages !== history) history.splice(0, history.length, ...fitted.messages)
    acct.truncations.push(...fitted.truncations)
    if (fitted.compaction) {
      acct.record(fitted.compaction.usage)
      acct.compactions.push(fitted.compaction.metadata)
      // Results of earlier calls may live only in the summary now: the model may fetch them again.
      step.seen.clear()
    }
    const completion = yield* completeStep(
      model,
      {
        messages: history,
        tools,
        toolChoice: last ? "none" : "auto",
        ...(options.responseFormat ? { responseFormat: options.responseFormat } : {}),
      },
      signal,
      options.streamText === true,
    )
    acct.record(completion.usage)
    // On the last step the model was told not to call tools; calls it makes anyway are dropped.
    const calls = last ? [] : completion.toolCalls
    const answer =
      calls.length > 0
        ? completion.content
        : (completion.content ?? (last && completion.toolCalls.length > 0 ? stoppedText(maxSteps) : ""))
    const assistant: AssistantMessage = { role: "assistant", content: answer }
    if (calls.length > 0) assistant.tool_calls = calls
    history.push(assistant)
    // One tally per step: the history does not change again before this step's tools run.
    const metadata = acct.metadata(history, tools, run.tools.report())
    yield { event: "token_count", data: { metadata } }

    if (calls.length === 0) {
      const text = answer ?? ""
      const invalid = await options.validateAnswer?.(text, signal)
      if (invalid !== undefined) {
        if (correctedFormat || last) {
          throw new ModelError(
            `The model's answer does not match response_format: ${invalid}`,
            "invalid_response",
          )
        }
        correctedFormat = true
        history.push({
          role: "user",
          content: `Your answer is not valid JSON for the required schema: ${invalid}. Reply again with only the JSON object.`,
        })
        continue
      }
      yield {
        event: "ai_answer_end",
        data: {
          analysis: text,
          conversation_history: history,
          follow_up_actions: options.followUpActions ?? null,
          metadata,
        },
      }
      return last ? "max_steps" : "answer"
    }

    if (completion.content || completion.reasoning) {
      yield {
        event: "ai_message",
        data: { content: completion.content, reasoning: completion.reasoning, metadata },
      }
    }
    const outcome = yield* runToolCalls(calls, step)
    history.push(...outcome.messages)
    const waiting = [...outcome.pending, ...outcome.frontend]
    const signTurn = approval.kind === "pause" ? approval.sign : options.frontendTools?.sign
    if (waiting.length > 0 && signTurn) {
      // Signed over the history through this assistant message, before the markers are added.
      const sign = signTurn(history.slice(0, history.indexOf(assistant) + 1))
      assistant.tool_calls = calls.map((call) => markPending(call, waiting, sign))
      yield {
        event: "approval_required",
        data: {
          content: null,
          conversation_history: history,
          follow_up_actions: options.followUpActions ?? null,
          requires_approval: true,
          pending_approvals: outcome.pending,
          ...(options.frontendTools ? { pending_frontend_tool_calls: outcome.frontend } : {}),
          metadata: acct.metadata(history, tools, run.tools.report()),
        },
      }
      return "approval"
    }
  }
  // Not reached: the last step is called without tools, so it always ends in an answer above.
  return "max_steps"
}

function markPending(
  call: ToolCall,
  pending: { tool_call_id: string }[],
  sign: (call: ToolCall) => string,
): ToolCall {
  if (!pending.some((p) => p.tool_call_id === call.id)) return call
  return { ...call, pending_approval: { signature: sign(call) } }
}

function stoppedText(maxSteps: number): string {
  return `I stopped after the limit of ${maxSteps} steps without reaching a conclusion. Ask me to continue, or narrow the question.`
}
