import { DEFAULT_MAX_STEPS } from "../config/settings.ts"
import type { ContextSettings } from "../context/limits.ts"
import type { ChatMessage, ChatModel, ResponseFormat, ToolCall } from "../llm/types.ts"
import type { ToolExecutor } from "../tool/executor.ts"
import type { ApprovalCallback, ApprovalMode, FrontendTools } from "./approval.ts"
import { collectRun, type RunOutcome } from "./collect.ts"
import type { ToolDecision } from "./decisions.ts"
import type { EngineEvent, FollowUpAction, StopReason } from "./events.ts"
import { runAgent } from "./loop.ts"
import { type LLMResult, llmResult } from "./result.ts"

/**
 * Everything one run can be asked to do: the engine door's options. Every face (library, CLI,
 * HTTP, and those to come) translates its own protocol into these.
 */
export type RunOptions = {
  /** Spec `approval_callback`: shorthand for `approval: { kind: "callback", callback }`. */
  approvalCallback?: ApprovalCallback
  /** Calls that need approval: ask a callback, pause the run (signed), or refuse (default). */
  approval?: ApprovalMode
  /** Tools the client executes: a call to one pauses the run (signed), its result comes back as a decision. */
  frontendTools?: FrontendTools
  /** Decisions for the calls an earlier run left pending in `messages` (checked before they run). */
  decisions?: readonly ToolDecision[]
  /** A message appended after the decided tool results (a follow-up's new question). */
  followUp?: ChatMessage
  responseFormat?: ResponseFormat
  /** Checks a final answer (structured output); returns why it is invalid, or undefined. */
  validateAnswer?: (answer: string, signal: AbortSignal) => string | undefined | Promise<string | undefined>
  followUpActions?: FollowUpAction[] | null
  signal?: AbortSignal
  /** Sees each tool call with its arguments as it starts; the events carry only name and id. */
  onToolCall?: (call: ToolCall) => void
  /** Also yield `ai_message_delta` events with the text the model writes, as it arrives (CONTRACT §9). */
  streamText?: boolean
}

/** The spec's name for the options of `call` and `callStream`. */
export type CallOptions = RunOptions

export type ToolCallingLLMInit = {
  model: ChatModel
  toolExecutor: ToolExecutor
  maxSteps?: number
  context?: ContextSettings
}

/** The engine door: one model, one set of tools, any number of conversations, for every face. */
export class ToolCallingLLM {
  readonly model: ChatModel
  readonly toolExecutor: ToolExecutor
  readonly maxSteps: number
  readonly context: ContextSettings | undefined

  constructor(init: ToolCallingLLMInit) {
    this.model = init.model
    this.toolExecutor = init.toolExecutor
    this.maxSteps = init.maxSteps ?? DEFAULT_MAX_STEPS
    this.context = init.context
  }

  /** The spec's `call_stream`: the events of one request as they happen; returns why it stopped. */
  callStream(messages: ChatMessage[], options: RunOptions = {}): AsyncGenerator<EngineEvent, StopReason> {
    const { approvalCallback, approval, ...rest } = options
    return runAgent({
      ...rest,
      model: this.model,
      executor: this.toolExecutor,
      messages,
      maxSteps: this.maxSteps,
      approval:
        approval ?? (approvalCallback ? { kind: "callback", callback: approvalCallback } : { kind: "off" }),
      ...(this.context ? { context: this.context } : {}),
    })
  }

  /** Runs to the neutral outcome every face maps to its own wire; `observe` sees each event. */
  run(
    messages: ChatMessage[],
    options: RunOptions = {},
    observe?: (message: EngineEvent) => void,
  ): Promise<RunOutcome> {
    return collectRun(this.callStream(messages, options), observe)
  }

  /** The spec's `call`: runs the conversation to its answer. */
  async call(messages: ChatMessage[], options: RunOptions = {}): Promise<LLMResult> {
    return llmResult(await this.run(messages, options))
  }
}
