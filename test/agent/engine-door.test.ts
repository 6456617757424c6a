import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import type { ApprovalMode } from "../../src/agent/approval.ts"
import type { StreamMessage } from "../../src/agent/events.ts"
import { chatResponseBody } from "../../src/agent/response-body.ts"
import { RequestError } from "../../src/errors.ts"
import type { ChatMessage, ToolCall } from "../../src/llm/types.ts"
import { ask, engine } from "../support/engine.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { EchoTool, GuardedTool, toolset } from "../support/tools.ts"

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

// Any face that pauses signs the calls; the library needs no proof of its own history.
const pause: ApprovalMode = { kind: "pause", sign: () => (call) => `sig-${call.id}` }

describe("the engine door", () => {
  test("the run says why it stopped: an answer, the step limit, an approval pause", async () => {
    fake.script({ content: "fine" })
    expect((await engine(fake).run(ask("q"))).stop).toBe("answer")

    fake.script({ toolCalls: [{ name: "echo", arguments: { text: "x" } }], content: null })
    const limited = engine(fake, { toolsets: [toolset("t", [new EchoTool()])], maxSteps: 1 })
    const generator = limited.callStream(ask("q"))
    let next = await generator.next()
    while (!next.done) next = await generator.next()
    expect(next.value).toBe("max_steps")

    fake.script({ toolCalls: [{ id: "r", name: "restart_service", arguments: { service: "nginx" } }] })
    const paused = await engine(fake, { toolsets: [toolset("t", [new GuardedTool()])] }).run(ask("q"), {
      approval: pause,
    })
    expect(paused.stop).toBe("approval")
    expect(paused.answer).toBeNull()
    expect(paused.pendingApprovals.map((p) => p.tool_call_id)).toEqual(["r"])
    expect(paused.toolCalls).toEqual([])
    expect(chatResponseBody(paused)).toMatchObject({ analysis: null, requires_approval: true })
  })

  test("a paused run resumes through the same door with decisions and a follow-up question", async () => {
    const guarded = new GuardedTool()
    const llm = engine(fake, { toolsets: [toolset("t", [guarded])] })
    fake.script(
      {
        toolCalls: [
          { id: "a", name: "restart_service", arguments: { service: "nginx" } },
          { id: "b", name: "restart_service", arguments: { service: "postgres" } },
        ],
      },
      { content: "nginx restarted, postgres left alone." },
    )
    const paused = await llm.run(ask("restart both"), { approval: pause })
    expect(guarded.ran).toEqual([])

    const resumed = await llm.run(paused.history, {
      decisions: [
        { tool_call_id: "a", approved: true },
        { tool_call_id: "b", approved: false, feedback: "not the database" },
      ],
      followUp: { role: "user", content: "and then?" },
    })
    expect(guarded.ran).toEqual(["nginx"])
    expect(resumed.stop).toBe("answer")
    expect(resumed.answer).toBe("nginx restarted, postgres left alone.")
    expect(resumed.toolCalls.map((c) => [c.tool_call_id, c.result.status])).toEqual([
      ["a", "success"],
      ["b", "error"],
    ])
    // The decided calls lose their markers and the question follows their results.
    const sent = fake.requests.at(-1)!.body!.messages as ChatMessage[]
    expect(JSON.stringify(sent)).not.toContain("pending_approval")
    expect(sent.at(-1)).toEqual({ role: "user", content: "and then?" })
  })

  test("decisions are checked by the engine with the HTTP API's messages", async () => {
    const llm = engine(fake, { toolsets: [toolset("t", [new GuardedTool()])] })
    fake.script({ toolCalls: [{ id: "a", name: "restart_service", arguments: { service: "nginx" } }] })
    const paused = await llm.run(ask("q"), { approval: pause })

    const stray = llm.run(paused.history, {
      decisions: [
        { tool_call_id: "a", approved: true },
        { tool_call_id: "zz", approved: true },
      ],
    })
    await expect(stray).rejects.toThrow(
      "tool_decisions names zz, which is not a tool call waiting for approval.",
    )
    await expect(llm.run(paused.history, { decisions: [] })).rejects.toThrow(
      "Every tool call waiting for approval needs a decision; missing: a.",
    )
    await expect(
      llm.run(ask("q"), { decisions: [{ tool_call_id: "a", approved: true }] }),
    ).rejects.toBeInstanceOf(RequestError)
  })

  test("onToolCall hands each call's arguments to the face before its start event", async () => {
    fake.script({ toolCalls: [{ id: "e", name: "echo", arguments: { text: "hi" } }] }, { content: "ok" })
    const order: string[] = []
    const calls: ToolCall[] = []
    await engine(fake, { toolsets: [toolset("t", [new EchoTool()])] }).run(
      ask("q"),
      {
        onToolCall: (call) => {
          calls.push(call)
          order.push(`hook ${call.id}`)
        },
      },
      (event: StreamMessage) => {
        if (event.event === "start_tool_calling") order.push(`start ${event.data.id}`)
      },
    )
    expect(order).toEqual(["hook e", "start e"])
    expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ text: "hi" })
  })
})
