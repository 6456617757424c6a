/** How the console folds stream events into what it shows (src/console/apply-event.ts). */
import { expect, test } from "bun:test"
import { applyEvent, endInterrupted } from "../../src/console/apply-event.ts"
import { readSse } from "../../src/console/sse.ts"
import { newConversation } from "../../src/console/store.ts"

test("deltas stream into one answer; the final event's text replaces them; the history is kept", () => {
  const conv = newConversation()
  applyEvent(conv, { event: "ai_message_delta", data: { content: "Look" } })
  applyEvent(conv, { event: "ai_message_delta", data: { content: "ing" } })
  expect(conv.entries).toEqual([{ kind: "assistant", text: "Looking", streaming: true }])
  applyEvent(conv, { event: "start_tool_calling", data: { tool_name: "note", id: "t1" } }, 1000)
  applyEvent(
    conv,
    {
      event: "tool_calling_result",
      data: {
        tool_call_id: "t1",
        name: "note",
        description: "note x",
        result: { status: "success", data: "out\n[TRUNCATED]", params: { text: "x" } },
      },
    },
    1500,
  )
  applyEvent(conv, { event: "ai_message_delta", data: { content: "Do" } })
  const history = [{ role: "system", content: "" }]
  applyEvent(conv, {
    event: "ai_answer_end",
    data: {
      analysis: "Done.",
      conversation_history: history,
      metadata: { tokens: { total_tokens: 9 }, max_tokens: 100 },
    },
  })
  expect(conv.entries[0]).toEqual({ kind: "assistant", text: "Looking", streaming: false })
  expect(conv.entries[1]).toMatchObject({
    kind: "tool",
    status: "success",
    args: { text: "x" },
    truncated: true,
    startedAt: 1000,
    endedAt: 1500,
  })
  expect(conv.entries[2]).toEqual({ kind: "assistant", text: "Done.", streaming: false })
  expect(conv.history).toBe(history)
  expect(conv.metadata).toEqual({ tokens: { total_tokens: 9 }, max_tokens: 100 })
})

test("an approval marks the card pending; an error event and a stop leave nothing running", () => {
  const conv = newConversation()
  applyEvent(conv, {
    event: "approval_required",
    data: {
      conversation_history: [],
      pending_approvals: [
        { tool_call_id: "r1", tool_name: "restart", description: "restart web", params: { s: 1 } },
      ],
    },
  })
  expect(conv.entries[0]).toMatchObject({ kind: "tool", name: "restart", status: "approval_required" })
  applyEvent(conv, { event: "start_tool_calling", data: { tool_name: "nap", id: "n1" } })
  endInterrupted(conv, "Stopped.")
  expect(conv.entries.at(-2)).toMatchObject({ kind: "tool", status: "stopped" })
  applyEvent(conv, { event: "error", data: { msg: "rate limited", error_code: 5204 } })
  expect(conv.entries.at(-1)).toEqual({ kind: "error", code: 5204, message: "rate limited" })
})

test("SSE frames split across chunks, pings and CRLF are read as events", async () => {
  const text =
    ': ping\r\n\r\nevent: ai_message_delta\r\ndata: {"content":"a"}\r\n\r\nevent: x\ndata: not json\n\nevent: e\ndata: {"n":1}\n\n'
  const bytes = new TextEncoder().encode(text)
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7))
      controller.close()
    },
  })
  const events = []
  for await (const event of readSse(body)) events.push(event)
  expect(events).toEqual([
    { event: "ai_message_delta", data: { content: "a" } },
    { event: "e", data: { n: 1 } },
  ])
})
