import type { SseEvent } from "./sse.ts"
import type { Conversation, Entry, Metadata, PendingApproval, ToolEntry } from "./types.ts"

/**
 * Folds one stream event into the conversation (mutating it: the page re-renders after each).
 * Event names and payloads are the spec's (CONTRACT §5, §9); an unknown event is ignored so a newer
 * server does not break an open page.
 */
export function applyEvent(conv: Conversation, { event, data }: SseEvent, now = Date.now()): void {
  const d = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>
  switch (event) {
    case "ai_message_delta": {
      const last = streamingAnswer(conv)
      if (last) last.text += str(d.content)
      else conv.entries.push({ kind: "assistant", text: str(d.content), streaming: true })
      return
    }
    case "ai_message":
      finishAnswer(conv, typeof d.content === "string" ? d.content : "")
      mergeMetadata(conv, d.metadata)
      return
    case "start_tool_calling": {
      finishAnswer(conv)
      const id = str(d.id)
      if (!findTool(conv, id))
        conv.entries.push({ kind: "tool", id, name: str(d.tool_name), status: "running", startedAt: now })
      return
    }
    case "tool_calling_result":
      toolResult(conv, d, now)
      return
    case "approval_required": {
      finishAnswer(conv)
      conv.history = Array.isArray(d.conversation_history) ? d.conversation_history : conv.history
      conv.pending = Array.isArray(d.pending_approvals) ? (d.pending_approvals as PendingApproval[]) : []
      conv.decisions = {}
      for (const p of conv.pending) {
        const tool = findTool(conv, p.tool_call_id) ?? pushTool(conv, p.tool_call_id, p.tool_name, now)
        Object.assign(tool, { status: "approval_required", args: p.params, description: p.description })
      }
      return
    }
    case "token_count":
      mergeMetadata(conv, d.metadata)
      return
    case "ai_answer_end":
      finishAnswer(conv, str(d.analysis))
      conv.history = Array.isArray(d.conversation_history) ? d.conversation_history : conv.history
      conv.pending = []
      mergeMetadata(conv, d.metadata)
      noteTruncations(conv, (d.metadata as Metadata | undefined)?.truncations)
      return
    case "conversation_history_compaction_start":
      conv.entries.push({ kind: "notice", text: str(d.content) || "Compacting the conversation…" })
      return
    case "conversation_history_compacted": {
      const m = (d.metadata ?? {}) as Record<string, unknown>
      const detail =
        typeof m.initial_tokens === "number" && typeof m.compacted_tokens === "number"
          ? `: ${m.initial_tokens} → ${m.compacted_tokens} tokens`
          : ""
      conv.entries.push({ kind: "notice", text: `Conversation compacted${detail}.` })
      return
    }
    case "error":
      finishAnswer(conv)
      stopRunningTools(conv, now)
      conv.entries.push({
        kind: "error",
        code: typeof d.error_code === "number" ? d.error_code : 1,
        message: str(d.msg) || str(d.description) || "The request failed.",
      })
      return
  }
}

/** The request ended without a final event (Stop, a dropped connection): nothing is left running. */
export function endInterrupted(conv: Conversation, note: string, now = Date.now()): void {
  finishAnswer(conv)
  stopRunningTools(conv, now)
  conv.entries.push({ kind: "notice", text: note })
}

function toolResult(conv: Conversation, d: Record<string, unknown>, now: number): void {
  const id = str(d.tool_call_id)
  const result = (d.result ?? {}) as Record<string, unknown>
  const tool = findTool(conv, id) ?? pushTool(conv, id, str(d.name), now)
  const output = typeof result.data === "string" ? result.data : JSON.stringify(result.data ?? "", null, 2)
  const status = str(result.status)
  tool.status =
    status === "success" || status === "error" || status === "approval_required" ? status : "error"
  tool.description = str(d.description) || tool.description
  if (result.params && typeof result.params === "object") tool.args = result.params as Record<string, unknown>
  if (status !== "approval_required") {
    tool.output = output
    tool.error = typeof result.error === "string" ? result.error : undefined
    tool.endedAt = now
    tool.truncated = tool.truncated || output.trimEnd().endsWith("[TRUNCATED]")
  }
}

function noteTruncations(conv: Conversation, truncations: Metadata["truncations"]): void {
  for (const t of truncations ?? []) {
    const tool = findTool(conv, t.tool_call_id)
    if (tool) tool.truncated = true
    conv.entries.push({
      kind: "notice",
      text: `Output of ${t.tool_name ?? tool?.name ?? "a tool"} was truncated to fit the context window.`,
    })
  }
}

function mergeMetadata(conv: Conversation, metadata: unknown): void {
  if (typeof metadata !== "object" || metadata === null) return
  const m = metadata as Metadata
  conv.metadata = { ...conv.metadata, ...(m.tokens ? { tokens: m.tokens } : {}), ...pickWindow(m) }
}

function pickWindow(m: Metadata): Metadata {
  return {
    ...(typeof m.max_tokens === "number" ? { max_tokens: m.max_tokens } : {}),
    ...(typeof m.max_output_tokens === "number" ? { max_output_tokens: m.max_output_tokens } : {}),
  }
}

function streamingAnswer(conv: Conversation): Extract<Entry, { kind: "assistant" }> | undefined {
  const last = conv.entries.at(-1)
  return last?.kind === "assistant" && last.streaming ? last : undefined
}

/** Ends the streamed message; `text` (the server's whole message) replaces the streamed deltas. */
function finishAnswer(conv: Conversation, text?: string): void {
  const last = streamingAnswer(conv)
  if (last) {
    last.streaming = false
    if (text) last.text = text
  } else if (text) conv.entries.push({ kind: "assistant", text, streaming: false })
}

function stopRunningTools(conv: Conversation, now: number): void {
  for (const e of conv.entries)
    if (e.kind === "tool" && e.status === "running") {
      e.status = "stopped"
      e.endedAt = now
    }
}

export function findTool(conv: Conversation, id: string): ToolEntry | undefined {
  for (const e of conv.entries) if (e.kind === "tool" && e.id === id) return e
  return undefined
}

function pushTool(conv: Conversation, id: string, name: string, now: number): ToolEntry {
  const tool: ToolEntry = { kind: "tool", id, name, status: "running", startedAt: now }
  conv.entries.push(tool)
  return tool
}

function str(value: unknown): string {
  return typeof value === "string" ? value : ""
}
