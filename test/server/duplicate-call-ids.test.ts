import { afterEach, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { eventOf, type Harness, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

// Findings R17: a reply with two calls sharing one id (one safe, one needing approval) left a
// history that every resume refused ("tool call id call_same appears twice").
test("R17: a provider that repeats a tool-call id in one reply leaves a conversation that resumes", async () => {
  h = await startHarness()
  h.fake.script({
    content: "Checking, then restarting.",
    toolCalls: [
      { id: "call_same", name: "note", arguments: { text: "look" } },
      { id: "call_same", name: "restart", arguments: { service: "web" } },
    ],
  })
  const first = await h.stream({ ask: "fix it", enable_tool_approval: true })
  const paused = eventOf(first.events, "approval_required")
  const ids = paused.conversation_history.flatMap((m) =>
    m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : [],
  )
  expect(new Set(ids).size).toBe(2)
  const pending = paused.pending_approvals[0]
  expect(pending?.tool_name).toBe("restart")

  h.fake.script({ content: "Restarted web." })
  const resumed = await h.stream({
    conversation_history: paused.conversation_history,
    tool_decisions: [{ tool_call_id: pending?.tool_call_id, approved: true }],
  })
  expect(resumed.response.status).toBe(200)
  expect(eventOf(resumed.events, "ai_answer_end").analysis).toBe("Restarted web.")
  const file = join(h.dir, "restarted.txt")
  expect(existsSync(file) ? readFileSync(file, "utf8").trim() : "").toBe("web")
})
