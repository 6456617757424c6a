import type { ContextSettings } from "../context/limits.ts"
import { ModelError } from "../errors.ts"
import type { ChatMessage, ChatModel, ResponseFormat } from "../llm/types.ts"
import type { ToolExecutor } from "../tool/executor.ts"
import { StructuredToolResult, type ToolResultStatus } from "../tool/result.ts"
import type { ApprovalCallback } from "./approval.ts"
import type { FollowUpAction, StreamMessage } from "./events.ts"
import { runAgent } from "./loop.ts"
import type { LLMResult, ToolCallResult } from "./result.ts"

export type CallOptions = {
  /** Decides calls that need approval; without it they become errors the model sees. */
  approvalCallback?: ApprovalCallback
  signal?: AbortSignal
  responseFormat?: ResponseFormat
  validateAnswer?: (answer: string) => string | undefined
  followUpActions?: FollowUpAction[] | null
}

export type ToolCallingLLMInit = {
  model: ChatModel
  toolExecutor: ToolExecutor
  maxSteps?: number
  context?: ContextSettings
}

/** The engine for embedding: one model, one set of tools, any number of conversations. */
export class ToolCallingLLM {
  readonly model: ChatModel
  readonly toolExecutor: ToolExecutor
  readonly maxSteps: number
  readonly context: ContextSettings | undefined

  constructor(init: ToolCallingLLMInit) {
    this.model = init.model
    this.toolExecutor = init.toolExecutor
    this.maxSteps = init.maxSteps ?? 100
    this.context = init.context
  }

  /** The spec's `call_stream`: the events of one request as they happen. */
  callStream(messages: ChatMessage[], options: CallOptions = {}): AsyncGenerator<StreamMessage, void> {
    return runAgent({
      model: this.model,
      executor: this.toolExecutor,
      messages,
      maxSteps: this.maxSteps,
      approval: options.approvalCallback
        ? { kind: "callback", callback: options.approvalCallback }
        : { kind: "off" },
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.responseFormat ? { responseFormat: options.responseFormat } : {}),
      ...(options.validateAnswer ? { validateAnswer: options.validateAnswer } : {}),
      ...(options.followUpActions !== undefined ? { followUpActions: options.followUpActions } : {}),
      ...(this.context ? { context: this.context } : {}),
    })
  }

  /** The spec's `call`: runs the conversation to its answer. */
  async call(messages: ChatMessage[], options: CallOptions = {}): Promise<LLMResult> {
    return drain(this.callStream(messages, options))
  }
}

/** Collects a run's events into an `LLMResult`. */
export async function drain(events: AsyncIterable<StreamMessage>): Promise<LLMResult> {
  const toolCalls: ToolCallResult[] = []
  for await (const message of events) {
    switch (message.event) {
      case "tool_calling_result": {
        const r = message.data.result
        toolCalls.push({
          toolCallId: message.data.tool_call_id,
          toolName: message.data.name,
          description: message.data.description,
          result: new StructuredToolResult({
            status: r.status as ToolResultStatus,
            data: r.data,
            error: r.error,
            params: r.params,
          }),
        })
        break
      }
      case "ai_answer_end": {
        const { costs } = message.data.metadata
        return {
          result: message.data.analysis,
          toolCalls,
          messages: message.data.conversation_history,
          numLlmCalls: costs.num_llm_calls,
          totalCost: costs.total_cost,
          totalTokens: costs.total_tokens,
          promptTokens: costs.prompt_tokens,
          completionTokens: costs.completion_tokens,
          metadata: message.data.metadata,
        }
      }
      case "error":
        throw new ModelError(message.data.msg, "invalid_response")
      case "approval_required":
      case "start_tool_calling":
      case "ai_message":
      case "token_count":
      case "conversation_history_compaction_start":
      case "conversation_history_compacted":
        break
      default: {
        const unknown: never = message
        throw new Error(`Unhandled event ${JSON.stringify(unknown)}`)
      }
    }
  }
  throw new ModelError("The conversation ended without an answer.", "invalid_response")
}
