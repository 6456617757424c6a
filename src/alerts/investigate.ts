/**
 * One investigation on the engine door: the same engine, toolsets and system prompt as chat, with
 * approval off (nobody is there to approve: such calls come back to the model as refused), a
 * wall-clock limit on top of the step limit, and the chat response body's fields as the result.
 */
import type { EngineEvent } from "../agent/events.ts"
import { buildInitialAskMessages } from "../agent/prompt/messages.ts"
import { resolveSections } from "../agent/prompt/sections.ts"
import { chatResponseBody } from "../agent/response-body.ts"
import type { ToolCallingLLM } from "../agent/tool-calling-llm.ts"
import type { ToolCall } from "../llm/types.ts"
import type { Runtime } from "../runtime/runtime.ts"
import type { AlertInput, InvestigationResult } from "../store/investigation.ts"
import { alertPrompt } from "./prompt.ts"

/** Default wall-clock limit of one investigation. */
export const DEFAULT_INVESTIGATION_TIMEOUT_MS = 10 * 60_000

export type InvestigateOptions = {
  signal?: AbortSignal
  timeoutMs?: number
  observe?: (event: EngineEvent) => void
  onToolCall?: (call: ToolCall) => void
}

/** The wall-clock limit ran out (the run was aborted). */
export class InvestigationTimeout extends Error {
  constructor(ms: number) {
    super(`The investigation took longer than its ${Math.round(ms / 1000)} s limit and was stopped.`)
    this.name = "InvestigationTimeout"
  }
}

/** The engine for investigations: `alerts.model`, else the default model. */
export function investigationEngine(runtime: Runtime): ToolCallingLLM {
  // A modelList key, or without a modelList any provider id (AlertSettings.model).
  return runtime.engine(runtime.config.alerts.model, { providerId: true })
}

export async function investigate(
  runtime: Runtime,
  llm: ToolCallingLLM,
  alert: AlertInput,
  options: InvestigateOptions = {},
): Promise<InvestigationResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_INVESTIGATION_TIMEOUT_MS
  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(new InvestigationTimeout(timeoutMs)), timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal
  try {
    const { config, runbooks } = runtime
    const messages = await buildInitialAskMessages({
      initialUserPrompt: alertPrompt({ alert, clusterName: config.clusterName, runbooks }),
      toolExecutor: llm.toolExecutor,
      runbooks,
      systemPromptAdditions: config.systemPromptAdditions,
      clusterName: config.clusterName,
      sections: resolveSections(config.enabledPrompts),
    })
    const outcome = await llm.run(
      messages,
      {
        approval: { kind: "off" },
        signal,
        followUpActions: [],
        ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
      },
      options.observe,
    )
    const body = chatResponseBody(outcome)
    return {
      analysis: body.analysis,
      tool_calls: body.tool_calls,
      conversation_history: body.conversation_history,
      metadata: body.metadata,
    }
  } catch (error) {
    if (timeout.signal.aborted && !options.signal?.aborted) throw timeout.signal.reason
    throw error
  } finally {
    clearTimeout(timer)
  }
}
