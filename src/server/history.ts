import { echo, echoList } from "../agent/echo.ts"
import { RequestError } from "../errors.ts"
import { isRecord } from "../is-record.ts"
import type { AssistantMessage, ChatMessage, ContentPart, ToolCall } from "../llm/types.ts"
import { Slicer } from "../offloop/yield.ts"

export type ValidHistory = {
  /** Rebuilt from known fields only, so nothing a client adds travels on to a provider. */
  messages: ChatMessage[]
  /** Calls on the last assistant message that wait for a decision (`pending_approval`). */
  pending: ToolCall[]
  /** Whether the model has answered before (the first turn gets follow-up actions). */
  hasAssistant: boolean
}

/**
 * Checks a history sent by a client (CONTRACT §5): the first message is `system`, roles and
 * content types are valid, every tool message answers a call of the assistant message before it,
 * and every call is answered before the conversation goes on, except the calls waiting for
 * approval, which may only sit on the last assistant message.
 */
export function validateHistory(raw: readonly unknown[]): ValidHistory {
  if (raw.length === 0) throw invalid("conversation_history is empty; it must start with a system message.")
  const steps = checked(raw.map((m, i) => toMessage(m, i)))
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value
}

/**
 * `validateHistory` a slice at a time: a client's history can be 50,000 messages (20 MB, the body
 * cap), a third of a second of rebuilding on the event loop in one piece (finding R2).
 */
export async function validateHistorySliced(
  raw: readonly unknown[],
  signal?: AbortSignal,
): Promise<ValidHistory> {
  if (raw.length === 0) throw invalid("conversation_history is empty; it must start with a system message.")
  const slicer = new Slicer(signal)
  const messages: ChatMessage[] = []
  for (let i = 0; i < raw.length; i++) {
    messages.push(toMessage(raw[i], i))
    if (i % CHECKS_PER_SLICE === CHECKS_PER_SLICE - 1) await slicer.tick()
  }
  const steps = checked(messages)
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value
    await slicer.tick()
  }
}

/** Messages checked between two looks at the clock (see Slicer). */
const CHECKS_PER_SLICE = 256

/** The checks of the history's order; it pauses (yields) every CHECKS_PER_SLICE messages. */
function* checked(messages: ChatMessage[]): Generator<void, ValidHistory> {
  if (messages[0]?.role !== "system") {
    throw invalid("conversation_history must start with a message whose role is system.")
  }

  // Calls of the latest assistant message that have no tool result yet.
  let open = new Map<string, ToolCall>()
  let openAt = -1
  let lastAssistant = -1
  for (const [i, message] of messages.entries()) {
    if (i % CHECKS_PER_SLICE === CHECKS_PER_SLICE - 1) yield
    if (message.role === "tool") {
      const call = open.get(message.tool_call_id)
      if (!call) {
        throw invalid(
          `conversation_history[${i}] is a tool result for ${echo(message.tool_call_id)}, which is not an unanswered tool call of the assistant message before it.`,
        )
      }
      if (call.pending_approval) {
        throw invalid(
          `conversation_history[${i}] answers ${echo(call.id)}, which is still waiting for approval.`,
        )
      }
      open.delete(message.tool_call_id)
      continue
    }
    if (open.size > 0) requireAnswered(open, openAt, `conversation_history[${i}]`)
    if (message.role !== "assistant") continue
    lastAssistant = i
    open = new Map((message.tool_calls ?? []).map((c) => [c.id, c]))
    openAt = i
  }

  const pending: ToolCall[] = []
  for (const [i, message] of messages.entries()) {
    if (i % CHECKS_PER_SLICE === CHECKS_PER_SLICE - 1) yield
    if (message.role !== "assistant") continue
    for (const call of message.tool_calls ?? []) {
      if (!call.pending_approval) continue
      if (i !== lastAssistant) {
        throw invalid(
          `conversation_history[${i}] has a tool call waiting for approval (${echo(call.id)}), but only the last assistant message may.`,
        )
      }
      pending.push(call)
    }
  }
  // At the end, only calls waiting for approval may be unanswered.
  requireAnswered(new Map([...open].filter(([, c]) => !c.pending_approval)), openAt, "the end")
  return { messages, pending, hasAssistant: lastAssistant >= 0 }
}

function requireAnswered(open: Map<string, ToolCall>, openAt: number, before: string): void {
  const unanswered = [...open.values()]
  if (unanswered.length === 0) return
  const ids = echoList(unanswered.map((c) => c.id))
  const pending = unanswered.some((c) => c.pending_approval)
  throw invalid(
    pending
      ? `The tool calls of conversation_history[${openAt}] are waiting for approval, so no message may follow them but their tool results.`
      : `Tool call ${ids} of conversation_history[${openAt}] has no tool result before ${before}.`,
  )
}

function toMessage(raw: unknown, i: number): ChatMessage {
  const at = `conversation_history[${i}]`
  if (!isRecord(raw)) throw invalid(`${at} must be an object with role and content.`)
  const { role, content } = raw
  switch (role) {
    case "system":
      if (typeof content !== "string") throw invalid(`${at}: a system message's content must be a string.`)
      return { role, content }
    case "user":
      return { role, content: userContent(content, at) }
    case "assistant":
      return assistantMessage(raw, at)
    case "tool": {
      if (typeof raw.tool_call_id !== "string" || raw.tool_call_id === "") {
        throw invalid(`${at}: a tool message needs the tool_call_id of the call it answers.`)
      }
      if (typeof content !== "string") throw invalid(`${at}: a tool message's content must be a string.`)
      return {
        role,
        tool_call_id: raw.tool_call_id,
        content,
        ...(typeof raw.name === "string" ? { name: raw.name } : {}),
      }
    }
    default:
      throw invalid(
        `${at} has role ${echo(JSON.stringify(role) ?? "undefined")}; valid roles are system, user, assistant and tool.`,
      )
  }
}

function userContent(content: unknown, at: string): string | ContentPart[] {
  if (typeof content === "string") return content
  if (!Array.isArray(content))
    throw invalid(`${at}: a user message's content must be a string or a list of parts.`)
  return content.map((part, j): ContentPart => {
    const where = `${at}.content[${j}]`
    if (isRecord(part) && part.type === "text" && typeof part.text === "string")
      return { type: "text", text: part.text }
    if (
      isRecord(part) &&
      part.type === "image_url" &&
      isRecord(part.image_url) &&
      typeof part.image_url.url === "string"
    ) {
      const { url, detail, format } = part.image_url
      if (!/^(https?:|data:)/i.test(url))
        throw invalid(`${where}: only http(s) and data: image URLs are accepted.`)
      return {
        type: "image_url",
        image_url: {
          url,
          ...(detail === "low" || detail === "high" || detail === "auto" ? { detail } : {}),
          ...(typeof format === "string" ? { format } : {}),
        },
      }
    }
    throw invalid(
      `${where} must be {"type":"text","text":...} or {"type":"image_url","image_url":{"url":...}}.`,
    )
  })
}

function assistantMessage(raw: Record<string, unknown>, at: string): AssistantMessage {
  const { content } = raw
  if (content !== null && content !== undefined && typeof content !== "string") {
    throw invalid(`${at}: an assistant message's content must be a string or null.`)
  }
  const message: AssistantMessage = { role: "assistant", content: content ?? null }
  if (raw.tool_calls === undefined || raw.tool_calls === null) return message
  if (!Array.isArray(raw.tool_calls)) throw invalid(`${at}: tool_calls must be a list.`)
  const seen = new Set<string>()
  const calls = raw.tool_calls.map((c, j) => toolCall(c, `${at}.tool_calls[${j}]`))
  for (const call of calls) {
    if (seen.has(call.id)) throw invalid(`${at}: tool call id ${echo(call.id)} appears twice.`)
    seen.add(call.id)
  }
  if (calls.length > 0) message.tool_calls = calls
  return message
}

function toolCall(raw: unknown, at: string): ToolCall {
  const fn = isRecord(raw) ? raw.function : undefined
  if (
    !isRecord(raw) ||
    typeof raw.id !== "string" ||
    raw.id === "" ||
    (raw.type !== undefined && raw.type !== "function") ||
    !isRecord(fn) ||
    typeof fn.name !== "string" ||
    typeof fn.arguments !== "string"
  ) {
    throw invalid(
      `${at} must be {"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}.`,
    )
  }
  const call: ToolCall = {
    id: raw.id,
    type: "function",
    function: { name: fn.name, arguments: fn.arguments },
  }
  const marker = raw.pending_approval
  if (marker !== undefined && marker !== null) {
    if (!isRecord(marker) || typeof marker.signature !== "string") {
      throw invalid(`${at}.pending_approval must be {"signature": "..."} as the server returned it.`)
    }
    call.pending_approval = { signature: marker.signature }
  }
  return call
}

function invalid(message: string): RequestError {
  return new RequestError(message)
}
