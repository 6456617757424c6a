import { afterEach, beforeEach, expect, test } from "bun:test"
import type { FrontendTools } from "../../src/agent/approval.ts"
import type { EngineEvent } from "../../src/agent/events.ts"
import { ask, engine } from "../support/engine.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { EchoTool, toolset } from "../support/tools.ts"

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

const frontend: FrontendTools = {
  tools: [{ type: "function", function: { name: "pick_pod", description: "Ask the user", parameters: {} } }],
  sign: () => (call) => `sig-${call.id}`,
}

test("the engine door: a frontend call pauses the run (the step's own tools still run), its result resumes it", async () => {
  const llm = engine(fake, { toolsets: [toolset("t", [new EchoTool()])] })
  fake.script(
    {
      content: null,
      toolCalls: [
        { id: "e", name: "echo", arguments: { text: "ran" } },
        { id: "p", name: "pick_pod", arguments: { ns: "web" } },
      ],
    },
    { content: "You picked web-2." },
  )
  const events: EngineEvent[] = []
  for await (const e of llm.callStream(ask("which pod?"), { frontendTools: frontend })) events.push(e)
  const paused = events.find((e) => e.event === "approval_required")
  if (paused?.event !== "approval_required") throw new Error("no pause")
  expect(paused.data.pending_frontend_tool_calls).toEqual([
    { tool_call_id: "p", tool_name: "pick_pod", arguments: { ns: "web" } },
  ])
  expect(paused.data.pending_approvals).toEqual([])
  // The backend call of the same step ran; only the frontend call waits, signed.
  const results = events.filter((e) => e.event === "tool_calling_result").map((e) => e.data.tool_call_id)
  expect(results).toEqual(["e"])
  const assistant = paused.data.conversation_history.findLast((m) => m.role === "assistant")
  expect(assistant?.role === "assistant" && assistant.tool_calls?.map((c) => c.pending_approval)).toEqual([
    undefined,
    { signature: "sig-p" },
  ])

  const resumed = await llm.run(paused.data.conversation_history, {
    frontendTools: frontend,
    decisions: [{ tool_call_id: "p", approved: true, result: "web-2" }],
  })
  expect(resumed.answer).toBe("You picked web-2.")
  const tool = resumed.history.find((m) => m.role === "tool" && m.tool_call_id === "p")
  expect(tool?.content).toContain("web-2")
})

test("a noop frontend tool does not pause: its call gets the given text as its result, a pausing one in the same step still waits", async () => {
  const llm = engine(fake, { toolsets: [toolset("t", [new EchoTool()])] })
  const tools: FrontendTools = {
    ...frontend,
    tools: [
      ...frontend.tools,
      { type: "function", function: { name: "flash", description: "Flash a pod", parameters: {} } },
    ],
    noop: new Map([["flash", "Flashed."]]),
  }
  fake.script({
    content: null,
    toolCalls: [
      { id: "f", name: "flash", arguments: { pod: "web-2" } },
      { id: "p", name: "pick_pod", arguments: {} },
    ],
  })
  const events: EngineEvent[] = []
  for await (const e of llm.callStream(ask("which pod?"), { frontendTools: tools })) events.push(e)
  const paused = events.find((e) => e.event === "approval_required")
  if (paused?.event !== "approval_required") throw new Error("no pause")
  expect(paused.data.pending_frontend_tool_calls?.map((c) => c.tool_call_id)).toEqual(["p"])
  const tool = paused.data.conversation_history.find((m) => m.role === "tool")
  expect(tool?.role === "tool" && tool.tool_call_id).toBe("f")
  expect(tool?.content).toContain("Flashed.")
  const assistant = paused.data.conversation_history.findLast((m) => m.role === "assistant")
  expect(assistant?.role === "assistant" && assistant.tool_calls?.map((c) => c.pending_approval)).toEqual([
    undefined,
    { signature: "sig-p" },
  ])
})
