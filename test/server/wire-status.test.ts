/**
 * CONTRACT §6: on the wire a tool result's status is one of the spec's three. A call that printed
 * nothing is `success` with `data: ""`, in events and in `tool_calls`, approved or not.
 */
import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { eventOf, type Harness, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

const SILENT = `toolsets:
  test/silent:
    description: Tools that print nothing
    tools:
      - name: hush
        description: Prints nothing
        command: "true"
      - name: hush_approved
        description: Prints nothing, after approval
        command: "true"
        requires_approval: true
`

async function silentHarness(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "dupin-server-test-"))
  const file = join(dir, "silent.yaml")
  writeFileSync(file, SILENT)
  const harness = await startHarness({ init: { customToolsets: [file] } })
  const stop = harness.stop
  harness.stop = async () => {
    await stop()
    rmSync(dir, { recursive: true, force: true })
  }
  return harness
}

const WIRE_STATUSES = ["success", "error", "approval_required"]

test("an approved call that printed nothing is success with empty data on the wire, not no_data", async () => {
  h = await silentHarness()
  h.fake.script({ content: "", toolCalls: [{ id: "q_1", name: "hush_approved", arguments: {} }] })
  const first = await h.stream({ ask: "go", enable_tool_approval: true })
  const history = eventOf(first.events, "approval_required").conversation_history

  h.fake.script({ content: "Done." })
  const second = await h.stream({
    conversation_history: history,
    tool_decisions: [{ tool_call_id: "q_1", approved: true }],
  })
  const result = eventOf(second.events, "tool_calling_result").result
  expect(result.status).toBe("success")
  expect(result.data).toBe("")
  expect(result.error).toBeNull()
})

test("a call that printed nothing is success in events and in non-stream tool_calls", async () => {
  h = await silentHarness()
  h.fake.script({ content: "", toolCalls: [{ id: "s_1", name: "hush", arguments: {} }] })
  h.fake.script({ content: "Nothing there." })
  const { events } = await h.stream({ ask: "go" })
  const streamed = eventOf(events, "tool_calling_result").result
  expect(streamed).toMatchObject({ status: "success", data: "" })

  h.fake.script({ content: "", toolCalls: [{ id: "s_2", name: "hush", arguments: {} }] })
  h.fake.script({ content: "Nothing there." })
  const res = await h.post({ ask: "go" })
  const body = (await res.json()) as { tool_calls: Array<{ result: { status: string; data: unknown } }> }
  expect(body.tool_calls).toHaveLength(1)
  for (const call of body.tool_calls) {
    expect(WIRE_STATUSES).toContain(call.result.status)
    expect(call.result.data).toBe("")
  }
})
