import { echo } from "../../agent/echo.ts"
import { RequestError } from "../../errors.ts"
import type { AssistantMessage, ChatMessage, ToolCall } from "../../llm/types.ts"
import type { AguiMessage } from "./input.ts"

/** An AG-UI conversation as dupin's history, with what a resume needs. */
export type ConvertedMessages = {
  /** dupin's history after its system message (dupin builds that one itself). */
  messages: ChatMessage[]
  /** The AG-UI id of each message above, so the snapshot sent back keeps the client's ids. */
  ids: string[]
  /** `system` and `developer` messages: the application's instructions, added to dupin's prompt. */
  instructions: string[]
  /**
   * Calls of the last assistant message that carry dupin's signature and wait: those needing
   * approval (no result yet) and frontend calls (whose results are in `frontendResults`).
   */
  pending: ToolCall[]
  /** The client's results for paused frontend calls, by call id (taken out of `messages`). */
  frontendResults: Map<string, FrontendResult>
}

/** A frontend tool's output as the client sent it, and the id of the message that carried it. */
export type FrontendResult = { content: string; id: string }

/**
 * Converts the messages of a RunAgentInput. The signature of a paused call travels as the call's
 * `encryptedValue`, which AG-UI clients store and return without reading; it becomes the call's
 * `pending_approval` marker, verified like /api/chat's before anything runs.
 */
export function fromAgui(
  input: readonly AguiMessage[],
  isFrontend: (name: string) => boolean,
): ConvertedMessages {
  const messages: ChatMessage[] = []
  const ids: string[] = []
  const instructions: string[] = []
  input.forEach((m, i) => {
    const at = `messages[${i}]`
    switch (m.role) {
      case "system":
      case "developer":
        instructions.push(text(m.content, at))
        return
      case "user":
        messages.push({ role: "user", content: text(m.content, at) })
        break
      case "assistant":
        messages.push(assistant(m, at))
        break
      case "tool":
        if (!m.toolCallId) throw new RequestError(`${at}: a tool message needs its toolCallId.`)
        messages.push({ role: "tool", tool_call_id: m.toolCallId, content: text(m.content, at) })
        break
      case "reasoning":
      case "activity":
        // The UI's own records; the model never saw them as conversation.
        return
      default:
        throw new RequestError(`${at} has role ${echo(m.role)}, which dupin does not accept.`)
    }
    ids.push(m.id)
  })
  return { messages, ids, instructions, ...pendingTurn(messages, ids, isFrontend) }
}

/** Marks the waiting calls of the last assistant message, and takes frontend results out. */
function pendingTurn(
  messages: ChatMessage[],
  ids: string[],
  isFrontend: (name: string) => boolean,
): { pending: ToolCall[]; frontendResults: Map<string, FrontendResult> } {
  const frontendResults = new Map<string, FrontendResult>()
  let at = messages.length - 1
  while (at >= 0 && messages[at]?.role === "tool") at--
  const turn = messages[at]
  if (turn?.role !== "assistant" || !turn.tool_calls) return { pending: [], frontendResults }
  const answered = new Map<string, number>()
  for (let i = at + 1; i < messages.length; i++) {
    const m = messages[i]
    if (m?.role === "tool") answered.set(m.tool_call_id, i)
  }
  const pending: ToolCall[] = []
  const drop = new Set<number>()
  for (const call of turn.tool_calls) {
    if (!call.pending_approval) continue
    const answer = answered.get(call.id)
    if (isFrontend(call.function.name)) {
      pending.push(call)
      if (answer !== undefined) {
        const m = messages[answer]
        if (m?.role === "tool") frontendResults.set(call.id, { content: m.content, id: ids[answer] ?? "" })
        drop.add(answer)
      }
    } else if (answer === undefined) {
      pending.push(call)
    } else {
      // Decided in an earlier run: the marker is history, not a question.
      delete call.pending_approval
    }
  }
  for (const call of turn.tool_calls) if (!pending.includes(call)) delete call.pending_approval
  for (const i of [...drop].sort((a, b) => b - a)) {
    messages.splice(i, 1)
    ids.splice(i, 1)
  }
  return { pending, frontendResults }
}

function assistant(m: AguiMessage, at: string): AssistantMessage {
  const content = m.content === undefined || m.content === null ? null : text(m.content, at)
  const message: AssistantMessage = { role: "assistant", content: content === "" ? null : content }
  const calls = (m.toolCalls ?? []).map(
    (c): ToolCall => ({
      id: c.id,
      type: "function",
      function: { name: c.function.name, arguments: c.function.arguments },
      ...(c.encryptedValue ? { pending_approval: { signature: c.encryptedValue } } : {}),
    }),
  )
  if (calls.length > 0) message.tool_calls = calls
  return message
}

function text(content: AguiMessage["content"], at: string): string {
  if (typeof content === "string") return content
  if (content === undefined || content === null) return ""
  return content
    .map((part, j) => {
      if (part.type === "text" && typeof part.text === "string") return part.text
      throw new RequestError(
        `${at}.content[${j}] is a ${echo(part.type)} part; dupin accepts text parts here.`,
      )
    })
    .join("")
}

/** An AG-UI message of dupin's history, for MESSAGES_SNAPSHOT. */
export type AguiOutMessage =
  | { id: string; role: "user"; content: string }
  | { id: string; role: "assistant"; content?: string; toolCalls?: AguiOutToolCall[] }
  | { id: string; role: "tool"; toolCallId: string; content: string }

type AguiOutToolCall = {
  id: string
  type: "function"
  function: { name: string; arguments: string }
  encryptedValue?: string
}

/** dupin's history (after the system message) as AG-UI messages; `idOf` names each one. */
export function toAgui(
  history: readonly ChatMessage[],
  idOf: (message: ChatMessage, index: number) => string,
): AguiOutMessage[] {
  return history.flatMap((m, i): AguiOutMessage[] => {
    const id = idOf(m, i)
    switch (m.role) {
      case "user":
        return [
          { id, role: "user", content: typeof m.content === "string" ? m.content : partsText(m.content) },
        ]
      case "tool":
        return [{ id, role: "tool", toolCallId: m.tool_call_id, content: m.content }]
      case "assistant":
        return [
          {
            id,
            role: "assistant",
            ...(m.content ? { content: m.content } : {}),
            ...(m.tool_calls?.length
              ? {
                  toolCalls: m.tool_calls.map((c) => ({
                    id: c.id,
                    type: "function" as const,
                    function: { name: c.function.name, arguments: c.function.arguments },
                    ...(c.pending_approval ? { encryptedValue: c.pending_approval.signature } : {}),
                  })),
                }
              : {}),
          },
        ]
      default:
        return [] // system: dupin's own, rebuilt each run
    }
  })
}

function partsText(parts: readonly { type: string; text?: string }[]): string {
  return parts.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("")
}
