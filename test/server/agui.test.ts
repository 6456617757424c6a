import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import {
  type BaseEvent,
  HttpAgent,
  type Message,
  PROTOCOL_VERSION,
  type RunAgentParameters,
} from "@ag-ui/client"
import { liveInGroup } from "../support/live-processes.ts"
import { waitFor, waitForPid } from "../support/wait.ts"
import { type Harness, providerMessages, startHarness } from "./harness.ts"

setDefaultTimeout(60_000)
let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

type Run = { events: BaseEvent[]; error?: unknown }

/** One run of the published client; its events in order, or what it threw. */
async function run(agent: HttpAgent, params: RunAgentParameters = {}): Promise<Run> {
  const events: BaseEvent[] = []
  try {
    await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) })
    return { events }
  } catch (error) {
    return { events, error }
  }
}

function agentFor(harness: Harness, text: string, headers: Record<string, string> = {}): HttpAgent {
  const agent = new HttpAgent({ url: `${harness.url}/api/agui`, headers })
  agent.addMessage({ id: "u1", role: "user", content: text })
  return agent
}

const types = (r: Run): string[] => r.events.map((e) => String(e.type))
const field = (e: BaseEvent | undefined, key: string): unknown =>
  (e as Record<string, unknown> | undefined)?.[key]
const finished = (r: Run) =>
  r.events.find((e) => e.type === "RUN_FINISHED") as
    | { outcome?: { type: string; interrupts?: { id: string }[]; pendingToolCallIds?: string[] } }
    | undefined

/** A run where the model asks to restart `web`, paused on its approval. */
async function pausedOnRestart(harness: Harness): Promise<{ agent: HttpAgent; paused: Run }> {
  harness.fake.script({
    content: null,
    toolCalls: [{ id: "r_1", name: "restart", arguments: { service: "web" } }],
  })
  const agent = agentFor(harness, "restart web")
  return { agent, paused: await run(agent) }
}

const restarted = (harness: Harness): string[] => {
  const file = join(harness.dir, "restarted.txt")
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []
}

describe("AG-UI on /api/agui with @ag-ui/client's HttpAgent", () => {
  test("a text answer: run started, the text as the model wrote it, run finished", async () => {
    h = await startHarness()
    h.fake.script({ content: "All pods are healthy." })
    const agent = agentFor(h, "how are the pods?")
    const r = await run(agent)
    expect(r.error).toBeUndefined()
    expect(types(r)[0]).toBe("RUN_STARTED")
    // The producer declares the protocol it speaks (AG-UI 1.0: RUN_STARTED.protocolVersion).
    expect(field(r.events[0], "protocolVersion")).toBe(PROTOCOL_VERSION)
    expect(types(r).at(-1)).toBe("RUN_FINISHED")
    const deltas = r.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => field(e, "delta"))
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join("")).toBe("All pods are healthy.")
    const tokens = r.events.find((e) => e.type === "CUSTOM" && field(e, "name") === "dupin.token_count")
    expect(field(field(tokens, "value") as BaseEvent, "costs")).toMatchObject({ num_llm_calls: 1 })
    const last = agent.messages.at(-1) as Message
    expect(last.role).toBe("assistant")
    expect(last.content).toBe("All pods are healthy.")
  })

  test("tool calls: start, args, end and result in order, with matching ids", async () => {
    h = await startHarness()
    h.fake.script(
      { content: "Looking.", toolCalls: [{ id: "n_1", name: "note", arguments: { text: "look" } }] },
      { content: "Noted." },
    )
    const r = await run(agentFor(h, "take a note"))
    expect(r.error).toBeUndefined()
    const tool = r.events.filter((e) => String(e.type).startsWith("TOOL_CALL_"))
    expect(tool.map((e) => String(e.type))).toEqual([
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
    ])
    expect(tool.map((e) => field(e, "toolCallId"))).toEqual(["n_1", "n_1", "n_1", "n_1"])
    expect(field(tool[0], "toolCallName")).toBe("note")
    expect(field(tool[1], "delta")).toBe('{"text":"look"}')
    expect(String(field(tool[3], "content"))).toContain("noted look")
    // The call hangs on the assistant message that wrote "Looking.".
    const textStart = r.events.find((e) => e.type === "TEXT_MESSAGE_START")
    expect(field(tool[0], "parentMessageId")).toBe(field(textStart, "messageId"))
    expect(finished(r)?.outcome?.type ?? "success").toBe("success")
  })

  test("several calls over two steps: each call's start, args and end in order, its result after, ids matching", async () => {
    h = await startHarness()
    h.fake.script(
      {
        content: "Two notes.",
        toolCalls: [
          { id: "n_1", name: "note", arguments: { text: "one" } },
          { id: "n_2", name: "note", arguments: { text: "two" } },
        ],
      },
      { content: null, toolCalls: [{ id: "n_3", name: "note", arguments: { text: "three" } }] },
      { content: "All noted." },
    )
    const r = await run(agentFor(h, "take three notes"))
    expect(r.error).toBeUndefined()
    const tool = r.events.filter((e) => String(e.type).startsWith("TOOL_CALL_"))
    const seen = tool.map((e) => `${String(e.type)}:${String(field(e, "toolCallId"))}`)
    expect(seen).toEqual([
      "TOOL_CALL_START:n_1",
      "TOOL_CALL_ARGS:n_1",
      "TOOL_CALL_END:n_1",
      "TOOL_CALL_START:n_2",
      "TOOL_CALL_ARGS:n_2",
      "TOOL_CALL_END:n_2",
      // The two results of the first step arrive as each tool finishes: either order.
      ...seen.slice(6, 8),
      "TOOL_CALL_START:n_3",
      "TOOL_CALL_ARGS:n_3",
      "TOOL_CALL_END:n_3",
      "TOOL_CALL_RESULT:n_3",
    ])
    expect(seen.slice(6, 8).sort()).toEqual(["TOOL_CALL_RESULT:n_1", "TOOL_CALL_RESULT:n_2"])
    const results = new Map(
      tool
        .filter((e) => e.type === "TOOL_CALL_RESULT")
        .map((e) => [field(e, "toolCallId"), field(e, "content")]),
    )
    expect(String(results.get("n_1"))).toContain("noted one")
    expect(String(results.get("n_2"))).toContain("noted two")
    expect(String(results.get("n_3"))).toContain("noted three")
    // Both calls of the first step hang on its text message; the second step's on another message.
    const starts = tool.filter((e) => e.type === "TOOL_CALL_START").map((e) => field(e, "parentMessageId"))
    const firstText = field(
      r.events.find((e) => e.type === "TEXT_MESSAGE_START"),
      "messageId",
    )
    expect(starts[0]).toBe(firstText)
    expect(starts[1]).toBe(firstText)
    expect(starts[2]).toBeString()
    expect(starts[2]).not.toBe(firstText)
    // No call event after the run finished; the answer is the last text.
    expect(types(r).indexOf("RUN_FINISHED")).toBe(types(r).length - 1)
  })

  test("the path Headlamp's AI Assistant posts to, /api/agui/chat, is the same AG-UI endpoint", async () => {
    h = await startHarness()
    h.fake.script({ content: "Healthy." })
    const agent = new HttpAgent({ url: `${h.url}/api/agui/chat` })
    agent.addMessage({ id: "u1", role: "user", content: "how is it?" })
    const r = await run(agent)
    expect(r.error).toBeUndefined()
    expect(types(r)[0]).toBe("RUN_STARTED")
    expect((agent.messages.at(-1) as Message).content).toBe("Healthy.")
  })

  test("an approval interrupt, resumed approved: the tool ran", async () => {
    h = await startHarness()
    const { agent, paused } = await pausedOnRestart(h)
    expect(paused.error).toBeUndefined()
    expect(finished(paused)?.outcome?.type).toBe("interrupt")
    expect(finished(paused)?.outcome?.interrupts?.map((i) => i.id)).toEqual(["r_1"])
    expect(restarted(h)).toEqual([])

    h.fake.script({ content: "Restarted." })
    const resumed = await run(agent, {
      resume: [{ interruptId: "r_1", status: "resolved", payload: { approved: true } }],
    })
    expect(resumed.error).toBeUndefined()
    expect(restarted(h)).toEqual(["web"])
    const result = resumed.events.find((e) => e.type === "TOOL_CALL_RESULT")
    expect(field(result, "toolCallId")).toBe("r_1")
    expect(String(field(result, "content"))).toContain("restarted web")
    expect(finished(resumed)?.outcome?.type ?? "success").toBe("success")
    // Resending the decided history with the same resume is refused: an approval is used once.
    const again = await run(agent, {
      resume: [{ interruptId: "r_1", status: "resolved", payload: { approved: true } }],
    })
    expect(restarted(h)).toEqual(["web"])
    expect(again.events.some((e) => e.type === "RUN_STARTED")).toBe(false)
    // The thread goes on: a new question after the resumed run is an ordinary run.
    agent.addMessage({ id: "u2", role: "user", content: "is it up?" })
    h.fake.script({ content: "It is up." })
    const next = await run(agent)
    expect(next.error).toBeUndefined()
    expect((agent.messages.at(-1) as Message).content).toBe("It is up.")
    expect(restarted(h)).toEqual(["web"])
  })

  test("an approval interrupt, resumed denied: the tool did not run, the model got the feedback", async () => {
    h = await startHarness()
    const { agent } = await pausedOnRestart(h)
    h.fake.script({ content: "Left it alone." })
    const resumed = await run(agent, {
      resume: [
        {
          interruptId: "r_1",
          status: "resolved",
          payload: { approved: false, feedback: "not during business hours" },
        },
      ],
    })
    expect(resumed.error).toBeUndefined()
    expect(restarted(h)).toEqual([])
    const tool = providerMessages(h.fake, 1).find((m) => m.role === "tool")
    expect(String(tool?.content)).toContain("Tool execution was denied by the user.")
    expect(String(tool?.content)).toContain("User feedback: not during business hours")
    expect((agent.messages.at(-1) as Message).content).toBe("Left it alone.")
  })

  test("an interrupt answered with status cancelled is a denial: the tool did not run", async () => {
    h = await startHarness()
    const { agent } = await pausedOnRestart(h)
    h.fake.script({ content: "Not restarted." })
    const resumed = await run(agent, { resume: [{ interruptId: "r_1", status: "cancelled" }] })
    expect(resumed.error).toBeUndefined()
    expect(restarted(h)).toEqual([])
    const tool = providerMessages(h.fake, 1).find((m) => m.role === "tool")
    expect(String(tool?.content)).toContain("Tool execution was denied by the user.")
  })

  test("a frontend tool round trip: pending tool call ids, then the client's result reaches the model", async () => {
    h = await startHarness()
    const tools = [
      {
        name: "show_pods",
        description: "Let the user pick a pod",
        parameters: { type: "object", properties: { namespace: { type: "string" } } },
      },
    ]
    h.fake.script({
      content: null,
      toolCalls: [{ id: "ui_1", name: "show_pods", arguments: { namespace: "web" } }],
    })
    const agent = agentFor(h, "which pod?")
    const paused = await run(agent, { tools })
    expect(paused.error).toBeUndefined()
    const sent = (h.fake.requests[0]?.body?.tools ?? []) as { function: { name: string } }[]
    expect(sent.map((t) => t.function.name)).toContain("show_pods")
    expect(finished(paused)?.outcome).toEqual({ type: "success", pendingToolCallIds: ["ui_1"] })
    // The client learns the call from the stream (AG-UI: pendingToolCallIds agrees with it).
    const call = paused.events.filter((e) => String(e.type).startsWith("TOOL_CALL_"))
    expect(call.map((e) => [String(e.type), field(e, "toolCallId")])).toEqual([
      ["TOOL_CALL_START", "ui_1"],
      ["TOOL_CALL_ARGS", "ui_1"],
      ["TOOL_CALL_END", "ui_1"],
    ])
    expect(field(call[0], "toolCallName")).toBe("show_pods")
    expect(field(call[1], "delta")).toBe('{"namespace":"web"}')
    const asked = agent.messages.find((m) => m.role === "assistant") as { toolCalls?: { id: string }[] }
    expect(asked.toolCalls?.map((c) => c.id)).toEqual(["ui_1"])

    agent.addMessage({ id: "t_1", role: "tool", toolCallId: "ui_1", content: "web-7" })
    h.fake.script({ content: "You picked web-7." })
    const resumed = await run(agent, { tools })
    expect(resumed.error).toBeUndefined()
    const tool = providerMessages(h.fake, 1).find((m) => m.role === "tool")
    expect(String(tool?.content)).toContain("web-7")
    expect((agent.messages.at(-1) as Message).content).toBe("You picked web-7.")
  })

  test("abort mid-run: the tool's process group is gone", async () => {
    h = await startHarness()
    const harness = h
    harness.fake.script({ toolCalls: [{ id: "n1", name: "nap", arguments: {} }] }, { content: "never asked" })
    const agent = agentFor(harness, "sleep")
    const running = run(agent)
    const pgid = await waitForPid(join(harness.dir, "nap.pid"))
    expect(liveInGroup(pgid).length).toBeGreaterThan(0)
    agent.abortRun()
    await running
    await waitFor(() => liveInGroup(pgid).length === 0, { what: "the tool's group to end" })
    expect(liveInGroup(pgid)).toEqual([])
    await waitFor(() => harness.runs.size === 0, { what: "the run to end" })
    expect(harness.fake.pending()).toBe(1)
  })

  test("a forged resume is refused: edited arguments, a stripped signature, another thread, a call the client added, an unknown interrupt; answer arguments are ignored", async () => {
    h = await startHarness()
    const { agent } = await pausedOnRestart(h)
    const resume = [{ interruptId: "r_1", status: "resolved" as const, payload: { approved: true } }]
    const post = (body: unknown) =>
      fetch(`${h?.url}/api/agui`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })
    const base = { threadId: agent.threadId, runId: "r2", tools: [], context: [], resume }
    const edit = (change: (call: { function: { arguments: string }; encryptedValue?: string }) => void) => {
      const messages = structuredClone(agent.messages) as Message[]
      for (const m of messages) if (m.role === "assistant") for (const c of m.toolCalls ?? []) change(c)
      return messages
    }
    const edited = await post({
      ...base,
      messages: edit((c) => {
        c.function.arguments = '{"service":"db"}'
      }),
    })
    expect(edited.status).toBe(400)
    const stripped = await post({ ...base, messages: edit((c) => delete c.encryptedValue) })
    expect(stripped.status).toBe(400)
    const elsewhere = await post({ ...base, threadId: "another-thread", messages: agent.messages })
    expect(elsewhere.status).toBe(400)
    // The refusal names AG-UI's own bindings, so a client that lost its threadId knows what to fix.
    expect(((await elsewhere.json()) as { detail: string }).detail).toContain(
      "resume in the thread that paused it (its threadId)",
    )
    // A call the client wrote itself, with a signature copied from the genuine one.
    const added = structuredClone(agent.messages) as Message[]
    added.push({
      id: "a_x",
      role: "assistant",
      toolCalls: [
        {
          id: "r_x",
          type: "function",
          function: { name: "restart", arguments: '{"service":"db"}' },
          encryptedValue: (
            agent.messages.find((m) => m.role === "assistant") as { toolCalls: { encryptedValue: string }[] }
          ).toolCalls[0]?.encryptedValue,
        } as never,
      ],
    })
    const smuggled = await post({
      ...base,
      messages: added,
      resume: [{ interruptId: "r_x", status: "resolved", payload: { approved: true } }],
    })
    expect(smuggled.status).toBe(400)
    // An interrupt id that was never raised.
    const unknown = await post({
      ...base,
      messages: agent.messages,
      resume: [...resume, { interruptId: "r_9", status: "resolved", payload: { approved: true } }],
    })
    expect(unknown.status).toBe(400)
    expect(restarted(h)).toEqual([])
    // The genuine resume still works afterwards: the refusals spent nothing.
    h.fake.script({ content: "Done." })
    // Arguments in the answer are not read: dupin runs what it signed (CONTRACT §11).
    const ok = await post({
      ...base,
      messages: agent.messages,
      resume: [
        {
          interruptId: "r_1",
          status: "resolved",
          payload: { approved: true, editedArgs: { service: "db" }, arguments: '{"service":"db"}' },
        },
      ],
    })
    expect(ok.status).toBe(200)
    await ok.text()
    expect(restarted(h)).toEqual(["web"])
  })

  test("a bad RunAgentInput is a 422, a tool named like dupin's a 400; without the token, 401", async () => {
    h = await startHarness({ init: { server: { auth_token: "s3cret" } } })
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${h?.url}/api/agui`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      })
    expect((await post({ threadId: "t", runId: "r", messages: [] })).status).toBe(401)
    const headlampPath = await fetch(`${h?.url}/api/agui/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ threadId: "t", runId: "r", messages: [] }),
    })
    expect(headlampPath.status).toBe(401)
    const auth = { authorization: "Bearer s3cret" }
    expect((await post({ threadId: "t", messages: [] }, auth)).status).toBe(422)
    expect((await post({ threadId: "t", runId: "r", messages: "hi" }, auth)).status).toBe(422)
    // A client tool may not take the name of one of dupin's, its run's own tools included.
    const user = [{ id: "u1", role: "user", content: "hi" }]
    for (const name of ["restart", "search_tools"]) {
      const tools = [{ name, description: "client side" }]
      const response = await post({ threadId: "t", runId: "r", messages: user, tools }, auth)
      expect(`${name}: ${response.status}`).toBe(`${name}: 400`)
    }
  })

  test("with a token configured, thread ids are scoped to it: another token's server refuses the resume", async () => {
    const server = (token: string) => ({
      init: { server: { auth_token: token, approval_secret: "shared-secret" } },
    })
    h = await startHarness(server("token-a"))
    const other = await startHarness(server("token-b"))
    const replica = await startHarness(server("token-a"))
    try {
      h.fake.script({
        content: null,
        toolCalls: [{ id: "r_1", name: "restart", arguments: { service: "web" } }],
      })
      const agent = agentFor(h, "restart web", { authorization: "Bearer token-a" })
      await run(agent)
      const body = {
        threadId: agent.threadId,
        runId: "r2",
        messages: agent.messages,
        resume: [{ interruptId: "r_1", status: "resolved", payload: { approved: true } }],
      }
      const post = (harness: Harness, token: string) =>
        fetch(`${harness.url}/api/agui`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        })
      expect((await post(other, "token-b")).status).toBe(400)
      expect(restarted(other)).toEqual([])
      // A replica with the same token and secret accepts it: the scope is the token, not the process.
      replica.fake.script({ content: "Done." })
      const ok = await post(replica, "token-a")
      expect(ok.status).toBe(200)
      await ok.text()
      expect(restarted(replica)).toEqual(["web"])
    } finally {
      await other.stop()
      await replica.stop()
    }
  })

  test("token counts and a compaction go out as CUSTOM events; the snapshot is the compacted history", async () => {
    h = await startHarness({ init: { contextWindow: 16_000 } })
    const pasted = "2026-11-23T10:00:00Z GET /api/orders 200 in 12ms from 10.0.0.1\n".repeat(400)
    h.fake.script(
      { content: "<analysis>logs</analysis><summary>The user pasted order logs; all 200.</summary>" },
      { content: "Nothing failed." },
    )
    const agent = new HttpAgent({ url: `${h.url}/api/agui` })
    agent.addMessage({ id: "u1", role: "user", content: `Here are logs:\n${pasted}` })
    agent.addMessage({ id: "a1", role: "assistant", content: "They all look fine." })
    agent.addMessage({ id: "u2", role: "user", content: "did anything fail?" })
    const r = await run(agent)
    expect(r.error).toBeUndefined()
    const custom = r.events.filter((e) => e.type === "CUSTOM").map((e) => String(field(e, "name")))
    expect(custom).toEqual(["dupin.compaction_start", "dupin.compacted", "dupin.token_count"])
    const compacted = r.events.find((e) => field(e, "name") === "dupin.compacted")
    expect(JSON.stringify(field(compacted, "value"))).toContain("The user pasted order logs")
    const tokens = field(
      r.events.find((e) => field(e, "name") === "dupin.token_count"),
      "value",
    )
    expect(tokens).toMatchObject({ costs: { num_llm_calls: 2 } })
    // The client's history is now dupin's compacted one: the summary, then the question.
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"])
    expect(String(agent.messages[0]?.content)).toContain("The user pasted order logs")
    expect(agent.messages.at(-1)?.content).toBe("Nothing failed.")
    // The next question on the thread goes on from the compacted history, in order.
    agent.addMessage({ id: "u3", role: "user", content: "and the database?" })
    h.fake.script({ content: "Not in these logs." })
    expect((await run(agent)).error).toBeUndefined()
    const sent = providerMessages(h.fake, h.fake.requests.length - 1).map((m) => m.role)
    expect(sent).toEqual(["system", "user", "user", "assistant", "user"])
  })

  test("the rest of RunAgentInput: forwardedProps.model picks a model, context and system messages reach the prompt, state is accepted", async () => {
    h = await startHarness({ useModelList: true })
    h.fake.script({ content: "Fine." })
    const agent = agentFor(h, "how is it?")
    agent.messages.unshift({ id: "s1", role: "system", content: "Answer in one word." })
    agent.setState({ selected: "web-1" })
    const r = await run(agent, {
      forwardedProps: { model: "blind" },
      context: [{ description: "The page the user is on", value: "pod web-1" }],
    })
    expect(r.error).toBeUndefined()
    expect(h.fake.requests[0]?.body?.model).toBe("gpt-3.5-turbo")
    const system = String(providerMessages(h.fake, 0)[0]?.content)
    expect(system).toContain("Answer in one word.")
    expect(system).toContain("The page the user is on: pod web-1")
    const unknown = await run(agentFor(h, "again"), { forwardedProps: { model: "nope" } })
    expect(String(unknown.error)).toContain("400")
  })

  test("a provider failure after the stream opened ends the run with RUN_ERROR", async () => {
    h = await startHarness()
    h.fake.script(
      { toolCalls: [{ id: "c1", name: "note", arguments: { text: "a" } }] },
      ...Array.from({ length: 6 }, () => ({ status: 503, headers: { "retry-after-ms": "1" } })),
    )
    const r = await run(agentFor(h, "anything"))
    expect(types(r)[0]).toBe("RUN_STARTED")
    expect(types(r).at(-1)).toBe("RUN_ERROR")
    expect(types(r)).toContain("TOOL_CALL_RESULT")
    expect(types(r)).not.toContain("RUN_FINISHED")
    expect(field(r.events.at(-1), "code")).toBe("1")
  })

  test("a mixed pause: the approval is an interrupt, the frontend call waits; one resume answers both", async () => {
    h = await startHarness()
    const tools = [{ name: "show_pods", description: "Let the user pick a pod" }]
    h.fake.script({
      content: null,
      toolCalls: [
        { id: "ui_1", name: "show_pods", arguments: {} },
        { id: "r_1", name: "restart", arguments: { service: "web" } },
      ],
    })
    const agent = agentFor(h, "restart the pod I pick")
    const paused = await run(agent, { tools })
    expect(finished(paused)?.outcome?.interrupts?.map((i) => i.id)).toEqual(["r_1"])
    agent.addMessage({ id: "t_1", role: "tool", toolCallId: "ui_1", content: "web" })
    h.fake.script({ content: "Restarted the pod you picked." })
    const resumed = await run(agent, {
      tools,
      resume: [{ interruptId: "r_1", status: "resolved", payload: { approved: true } }],
    })
    expect(resumed.error).toBeUndefined()
    expect(restarted(h)).toEqual(["web"])
    const sent = providerMessages(h.fake, 1).filter((m) => m.role === "tool")
    expect(sent.map((m) => m.tool_call_id)).toEqual(["ui_1", "r_1"])
  })

  test("a second question on the same thread: the model sees the whole conversation", async () => {
    h = await startHarness()
    h.fake.script({ content: "Three pods." }, { content: "All running." })
    const agent = agentFor(h, "how many pods?")
    await run(agent)
    agent.addMessage({ id: "u2", role: "user", content: "are they running?" })
    const second = await run(agent)
    expect(second.error).toBeUndefined()
    const sent = providerMessages(h.fake, 1).map((m) => [m.role, m.content])
    expect(sent.slice(1)).toEqual([
      ["user", "how many pods?"],
      ["assistant", "Three pods."],
      ["user", "are they running?"],
    ])
    expect(agent.messages.map((m) => m.id).slice(0, 1)).toEqual(["u1"])
    expect(agent.messages.map((m) => m.content)).toEqual([
      "how many pods?",
      "Three pods.",
      "are they running?",
      "All running.",
    ])
  })
})
