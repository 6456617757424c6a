import { describe, expect, test } from "bun:test"
import type { EngineEvent } from "../../../src/agent/events.ts"
import type { ChatMessage } from "../../../src/llm/types.ts"
import { AguiTranslator } from "../../../src/server/agui/events.ts"

/** Engine events as the loop yields them; figures the translator passes through are left empty. */
const event = (value: { event: string; data: Record<string, unknown> }) => value as unknown as EngineEvent

const translator = () =>
  new AguiTranslator({
    threadId: "t",
    runId: "r",
    inputIds: { users: ["u1"], assistants: [], tools: new Map() },
    clientToolMessageIds: new Map(),
  })

const history: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "why?" },
  { role: "assistant", content: "Because." },
]

describe("AguiTranslator", () => {
  test("an answer that arrived whole (no deltas) still goes out as one text message, before the snapshot", () => {
    const t = translator()
    const out = [
      ...t.translate(event({ event: "token_count", data: { metadata: {} } })),
      ...t.translate(
        event({
          event: "ai_answer_end",
          data: {
            analysis: "Because.",
            conversation_history: history,
            follow_up_actions: null,
            metadata: {},
          },
        }),
      ),
    ]
    expect(out.map((e) => e.type)).toEqual([
      "CUSTOM",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "MESSAGES_SNAPSHOT",
      "RUN_FINISHED",
    ])
    const snapshot = out[4]?.messages as { id: string; role: string }[]
    // The client's user message keeps its id; the answer has the id of the text message it saw.
    expect(snapshot.map((m) => m.id)).toEqual(["u1", String(out[1]?.messageId)])
  })

  test("compaction goes out as CUSTOM events, and the snapshot after it gives the new history new ids", () => {
    const t = translator()
    const start = t.translate(
      event({ event: "conversation_history_compaction_start", data: { content: "x", metadata: {} } }),
    )
    const done = t.translate(
      event({
        event: "conversation_history_compacted",
        data: { content: "y", compaction_summary: "<summary>s</summary>", messages: history, metadata: {} },
      }),
    )
    expect(start).toEqual([
      { type: "CUSTOM", name: "dupin.compaction_start", value: { content: "x", metadata: {} } },
    ])
    expect(done[0]?.name).toBe("dupin.compacted")
    expect(JSON.stringify(done[0])).not.toContain('"messages"')
    const [snapshot] = [
      ...t.translate(event({ event: "token_count", data: { metadata: {} } })),
      ...t.translate(
        event({
          event: "ai_answer_end",
          data: {
            analysis: "Because.",
            conversation_history: history,
            follow_up_actions: null,
            metadata: {},
          },
        }),
      ),
    ].filter((e) => e.type === "MESSAGES_SNAPSHOT")
    const ids = ((snapshot?.messages ?? []) as { id: string }[]).map((m) => m.id)
    expect(ids.length).toBe(2)
    expect(ids).not.toContain("u1")
  })
})
