import { randomUUID } from "node:crypto"
import type { EngineEvent } from "../../agent/events.ts"
import type { ChatMessage, ToolCall } from "../../llm/types.ts"
import { ToolResultStatus } from "../../tool/result.ts"
import { type AguiOutMessage, toAgui } from "./messages.ts"

/** The AG-UI protocol version dupin speaks, declared on RUN_STARTED. */
export const AGUI_PROTOCOL_VERSION = "1.0"

/** One AG-UI event as it goes on the wire (`data: <json>`). */
export type AguiEvent = { type: string } & Record<string, unknown>

/** What the translator needs from the run's input. */
export type RunContext = {
  threadId: string
  runId: string
  /** The AG-UI ids of the input messages: user and assistant ones in order, tool ones by call id. */
  inputIds: { users: readonly string[]; assistants: readonly string[]; tools: ReadonlyMap<string, string> }
  /** Tool messages the client sent for frontend calls: their ids, by call id. */
  clientToolMessageIds: ReadonlyMap<string, string>
}

/**
 * The one mapping between dupin's engine events and AG-UI 1.0 events (the table in docs/api.md).
 * Stateful over one run: it opens and closes text messages around the model's deltas, hangs tool
 * calls on the assistant message of their step, and remembers the ids it gave out so that the
 * final MESSAGES_SNAPSHOT names every message the way the client already knows it.
 */
export class AguiTranslator {
  readonly #run: RunContext
  /** Arguments of each call, from the engine's onToolCall: start_tool_calling carries none. */
  readonly #calls = new Map<string, ToolCall>()
  readonly #stepIds: string[] = []
  readonly #toolMessageIds = new Map<string, string>()
  #text: string | undefined
  #stepText = false
  /** Whether the latest model call's text went out as deltas (a provider may not stream). */
  #lastStepText = false
  #compacted = false

  constructor(run: RunContext) {
    this.#run = run
    for (const [callId, id] of run.clientToolMessageIds) this.#toolMessageIds.set(callId, id)
  }

  /** For RunOptions.onToolCall. */
  readonly onToolCall = (call: ToolCall): void => {
    this.#calls.set(call.id, call)
  }

  started(): AguiEvent[] {
    const { threadId, runId } = this.#run
    return [{ type: "RUN_STARTED", threadId, runId, protocolVersion: AGUI_PROTOCOL_VERSION }]
  }

  failed(message: string, code: string): AguiEvent[] {
    return [...this.#closeText(), { type: "RUN_ERROR", message, code }]
  }

  translate(e: EngineEvent): AguiEvent[] {
    switch (e.event) {
      case "ai_message_delta":
        return this.#delta(e.data.content)
      case "token_count": {
        // After each provider response: the step's text is complete.
        const closed = this.#closeText()
        if (!this.#stepText) this.#stepIds.push(randomUUID())
        this.#lastStepText = this.#stepText
        this.#stepText = false
        return [...closed, custom("dupin.token_count", e.data.metadata)]
      }
      case "ai_message":
        return this.#wholeText(e.data.content)
      case "start_tool_calling":
        return this.#toolCall(e.data.id, e.data.tool_name)
      case "tool_calling_result": {
        const { result, tool_call_id } = e.data
        // Waiting calls become interrupts; a frontend result is already the client's own message.
        if (result.status === ToolResultStatus.APPROVAL_REQUIRED) return []
        if (this.#run.clientToolMessageIds.has(tool_call_id)) return []
        const messageId = randomUUID()
        this.#toolMessageIds.set(tool_call_id, messageId)
        return [
          {
            type: "TOOL_CALL_RESULT",
            messageId,
            toolCallId: tool_call_id,
            role: "tool",
            content: JSON.stringify(result),
          },
        ]
      }
      case "conversation_history_compaction_start":
        return [custom("dupin.compaction_start", e.data)]
      case "conversation_history_compacted":
        this.#compacted = true
        return [custom("dupin.compacted", { ...e.data, messages: undefined })]
      case "ai_answer_end":
        return [
          ...this.#wholeText(e.data.analysis),
          this.#snapshot(e.data.conversation_history),
          this.#finished({ type: "success" }, e.data.analysis),
        ]
      case "approval_required": {
        const approvals = e.data.pending_approvals
        const frontend = e.data.pending_frontend_tool_calls ?? []
        const outcome =
          approvals.length > 0
            ? {
                type: "interrupt",
                interrupts: approvals.map((p) => ({
                  id: p.tool_call_id,
                  reason: "tool_approval",
                  message: p.description,
                  toolCallId: p.tool_call_id,
                  metadata: { tool_name: p.tool_name, params: p.params },
                })),
              }
            : { type: "success", pendingToolCallIds: frontend.map((f) => f.tool_call_id) }
        return [this.#snapshot(e.data.conversation_history), this.#finished(outcome)]
      }
    }
  }

  #delta(content: string): AguiEvent[] {
    if (content === "") return []
    const out: AguiEvent[] = []
    if (!this.#text) {
      this.#text = randomUUID()
      this.#stepIds.push(this.#text)
      this.#stepText = true
      out.push({ type: "TEXT_MESSAGE_START", messageId: this.#text, role: "assistant" })
    }
    out.push({ type: "TEXT_MESSAGE_CONTENT", messageId: this.#text, delta: content })
    return out
  }

  /** A model call's text that arrived whole rather than as deltas, as one text message. */
  #wholeText(content: string | null): AguiEvent[] {
    const messageId = this.#stepIds.at(-1)
    if (this.#lastStepText || !content || !messageId) return []
    this.#lastStepText = true
    return [
      { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId, delta: content },
      { type: "TEXT_MESSAGE_END", messageId },
    ]
  }

  #closeText(): AguiEvent[] {
    if (!this.#text) return []
    const messageId = this.#text
    this.#text = undefined
    return [{ type: "TEXT_MESSAGE_END", messageId }]
  }

  #toolCall(id: string, name: string): AguiEvent[] {
    const args = this.#calls.get(id)?.function.arguments ?? ""
    const parentMessageId = this.#stepIds.at(-1)
    return [
      {
        type: "TOOL_CALL_START",
        toolCallId: id,
        toolCallName: name,
        ...(parentMessageId ? { parentMessageId } : {}),
      },
      ...(args ? [{ type: "TOOL_CALL_ARGS", toolCallId: id, delta: args }] : []),
      { type: "TOOL_CALL_END", toolCallId: id },
    ]
  }

  #finished(outcome: Record<string, unknown>, result?: string): AguiEvent {
    return {
      type: "RUN_FINISHED",
      threadId: this.#run.threadId,
      runId: this.#run.runId,
      outcome,
      ...(result !== undefined ? { result } : {}),
    }
  }

  /**
   * The conversation as dupin holds it, so the client sends back exactly what dupin's signatures
   * cover (tool results as the model read them, paused calls with their signature). Input messages
   * keep their ids. After a compaction every message gets a new id, those streamed in this run
   * too: a client keeps the messages whose ids it knows where they are and appends the others
   * (@ag-ui/client does), so one known id would put the summary after it.
   */
  #snapshot(history: readonly ChatMessage[]): AguiEvent {
    if (this.#compacted) return { type: "MESSAGES_SNAPSHOT", messages: toAgui(history, () => randomUUID()) }
    const input = this.#run.inputIds
    const users = [...input.users]
    const assistants = [...input.assistants, ...this.#stepIds]
    const messages: AguiOutMessage[] = toAgui(history, (m) => {
      if (m.role === "user") return users.shift() ?? randomUUID()
      if (m.role === "assistant") return assistants.shift() ?? randomUUID()
      if (m.role === "tool")
        return this.#toolMessageIds.get(m.tool_call_id) ?? input.tools.get(m.tool_call_id) ?? randomUUID()
      return randomUUID()
    })
    return { type: "MESSAGES_SNAPSHOT", messages }
  }
}

function custom(name: string, value: unknown): AguiEvent {
  return { type: "CUSTOM", name, value }
}
