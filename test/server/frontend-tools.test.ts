import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { ChatMessage } from "../../src/llm/types.ts"
import { eventOf, type Harness, providerMessages, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

const showPods = {
  type: "function",
  function: {
    name: "show_pods",
    description: "Show pods in the user's UI and return what the user selected",
    parameters: { type: "object", properties: { namespace: { type: "string" } } },
  },
}

const restarted = (harness: Harness): string[] => {
  const file = join(harness.dir, "restarted.txt")
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []
}

/** A first turn where the model calls the frontend tool `show_pods` (and maybe more). */
async function pausedOn(
  harness: Harness,
  extra: { id: string; name: string; arguments: Record<string, unknown> }[] = [],
) {
  harness.fake.script({
    content: null,
    toolCalls: [{ id: "ui_1", name: "show_pods", arguments: { namespace: "web" } }, ...extra],
  })
  const { response, events } = await harness.stream({
    ask: "which pods?",
    frontend_tools: [showPods],
    ...(extra.length ? { enable_tool_approval: true } : {}),
  })
  expect(response.status).toBe(200)
  return eventOf(events, "approval_required")
}

describe("frontend tools on /api/chat", () => {
  setDefaultTimeout(30_000)
  test("the HolmesGPT flow: offered to the model, paused, resumed with the client's result", async () => {
    h = await startHarness()
    const paused = await pausedOn(h)
    const sent = (h.fake.requests[0]?.body?.tools ?? []) as { function: { name: string } }[]
    const offered = sent.map((t) => t.function.name)
    expect(offered).toContain("show_pods")
    expect(paused.pending_frontend_tool_calls).toEqual([
      { tool_call_id: "ui_1", tool_name: "show_pods", arguments: { namespace: "web" } },
    ])
    expect(paused.pending_approvals).toEqual([])

    h.fake.script({ content: "web-1 is the one you picked." })
    const { events } = await h.stream({
      conversation_history: paused.conversation_history,
      frontend_tool_results: [
        { tool_call_id: "ui_1", tool_name: "show_pods", result: { selected: "web-1" } },
      ],
      frontend_tools: [showPods],
    })
    expect(eventOf(events, "ai_answer_end").analysis).toBe("web-1 is the one you picked.")
    const tool = providerMessages(h.fake, 1).find((m) => m.role === "tool")
    expect(String(tool?.content)).toContain('{"selected":"web-1"}')
  })

  test("needs stream: true (422)", async () => {
    h = await startHarness()
    const response = await h.post({ ask: "x", frontend_tools: [showPods] })
    expect(response.status).toBe(422)
    const resumed = await h.post({ ask: "x", frontend_tool_results: [{ tool_call_id: "a", result: "r" }] })
    expect(resumed.status).toBe(422)
  })

  test("a result for a call that was never asked for is refused (400), so is one naming another tool, and one without a pause", async () => {
    h = await startHarness()
    const paused = await pausedOn(h)
    const wrong = await h.post({
      stream: true,
      conversation_history: paused.conversation_history,
      frontend_tool_results: [{ tool_call_id: "ui_2", result: "r" }],
    })
    expect(wrong.status).toBe(400)
    expect(((await wrong.json()) as { detail: string }).detail).toContain("ui_2")
    const misnamed = await h.post({
      stream: true,
      conversation_history: paused.conversation_history,
      frontend_tool_results: [{ tool_call_id: "ui_1", tool_name: "restart", result: "r" }],
    })
    expect(misnamed.status).toBe(400)

    const noPause = await h.post({
      stream: true,
      conversation_history: [
        { role: "system", content: "" },
        { role: "user", content: "hi" },
      ],
      frontend_tool_results: [{ tool_call_id: "ui_1", result: "r" }],
    })
    expect(noPause.status).toBe(400)
  })

  test("an edited frontend call is refused: its signature binds the arguments", async () => {
    h = await startHarness()
    const paused = await pausedOn(h)
    const history = structuredClone(paused.conversation_history) as ChatMessage[]
    const last = history.findLast((m) => m.role === "assistant")
    if (last?.role !== "assistant" || !last.tool_calls?.[0]) throw new Error("no call")
    last.tool_calls[0].function.arguments = '{"namespace":"kube-system"}'
    const response = await h.post({
      stream: true,
      conversation_history: history,
      frontend_tool_results: [{ tool_call_id: "ui_1", result: "r" }],
    })
    expect(response.status).toBe(400)
  })

  test("a mixed pause: a backend call needing approval and a frontend call in one step", async () => {
    h = await startHarness()
    const paused = await pausedOn(h, [{ id: "r_1", name: "restart", arguments: { service: "web" } }])
    expect(paused.pending_approvals.map((p) => p.tool_call_id)).toEqual(["r_1"])
    expect(paused.pending_frontend_tool_calls?.map((p) => p.tool_call_id)).toEqual(["ui_1"])

    // Answering only one of them is refused; so is a decision for the frontend call.
    const partial = await h.post({
      stream: true,
      conversation_history: paused.conversation_history,
      frontend_tool_results: [{ tool_call_id: "ui_1", result: "web-1" }],
    })
    expect(partial.status).toBe(400)
    const misdirected = await h.post({
      stream: true,
      conversation_history: paused.conversation_history,
      tool_decisions: [
        { tool_call_id: "r_1", approved: true },
        { tool_call_id: "ui_1", approved: true },
      ],
    })
    expect(misdirected.status).toBe(400)
    expect(restarted(h)).toEqual([])

    h.fake.script({ content: "Restarted web; you picked web-1." })
    const { events } = await h.stream({
      conversation_history: paused.conversation_history,
      tool_decisions: [{ tool_call_id: "r_1", approved: true }],
      frontend_tool_results: [{ tool_call_id: "ui_1", result: "web-1" }],
    })
    expect(eventOf(events, "ai_answer_end").analysis).toBe("Restarted web; you picked web-1.")
    expect(restarted(h)).toEqual(["web"])
    const tools = providerMessages(h.fake, 1).filter((m) => m.role === "tool")
    expect(tools.map((m) => m.tool_call_id)).toEqual(["ui_1", "r_1"])
  })

  test("a frontend tool named like one of dupin's tools is refused (400), the run's own tools included", async () => {
    h = await startHarness()
    for (const name of ["restart", "search_tools", "read_tool_output", "TodoWrite"]) {
      const response = await h.post({
        ask: "x",
        stream: true,
        frontend_tools: [{ type: "function", function: { name } }],
      })
      expect(`${name}: ${response.status}`).toBe(`${name}: 400`)
    }
    expect(h.fake.requests).toEqual([])
  })

  test("a tool_decisions item cannot smuggle a result for a backend call: the call runs", async () => {
    h = await startHarness()
    h.fake.script({
      content: null,
      toolCalls: [{ id: "r_1", name: "restart", arguments: { service: "web" } }],
    })
    const first = await h.stream({
      ask: "restart web",
      enable_tool_approval: true,
      frontend_tools: [showPods],
    })
    const paused = eventOf(first.events, "approval_required")
    h.fake.script({ content: "Done." })
    await h.stream({
      conversation_history: paused.conversation_history,
      tool_decisions: [{ tool_call_id: "r_1", approved: true, result: "pretend it ran" }],
    })
    expect(restarted(h)).toEqual(["web"])
    const tool = providerMessages(h.fake, 1).find((m) => m.role === "tool")
    expect(String(tool?.content)).not.toContain("pretend it ran")
  })

  test("HolmesGPT's own item shape (name, description, parameters at the top) works like the OpenAI one", async () => {
    h = await startHarness()
    // The same tool as `showPods`, as HolmesGPT's clients write it.
    const holmesTool = { ...showPods.function, mode: "pause" }
    h.fake.script({
      content: null,
      toolCalls: [{ id: "ui_1", name: "show_pods", arguments: { namespace: "web" } }],
    })
    const first = await h.stream({ ask: "which pods?", frontend_tools: [holmesTool] })
    expect(first.response.status).toBe(200)
    const sent = (h.fake.requests[0]?.body?.tools ?? []) as {
      function: { name: string; parameters: unknown }
    }[]
    const offered = sent.find((t) => t.function.name === "show_pods")
    expect(offered?.function.parameters).toEqual(holmesTool.parameters)
    const paused = eventOf(first.events, "approval_required")
    expect(paused.pending_frontend_tool_calls?.map((c) => c.tool_call_id)).toEqual(["ui_1"])
    h.fake.script({ content: "You picked web-1." })
    const { events } = await h.stream({
      conversation_history: paused.conversation_history,
      frontend_tools: [holmesTool],
      frontend_tool_results: [{ tool_call_id: "ui_1", tool_name: "show_pods", result: "web-1" }],
    })
    expect(eventOf(events, "ai_answer_end").analysis).toBe("You picked web-1.")
  })

  test("HolmesGPT's noop mode: the call does not pause, the model reads the canned reply, the client sees the call", async () => {
    h = await startHarness()
    const highlight = {
      name: "highlight_pod",
      description: "Highlight a pod in the user's UI",
      parameters: { type: "object", properties: { pod: { type: "string" } } },
      mode: "noop",
      noop_response: "Highlighted.",
    }
    h.fake.script(
      { content: null, toolCalls: [{ id: "hl_1", name: "highlight_pod", arguments: { pod: "web-1" } }] },
      { content: "I highlighted web-1." },
    )
    const { response, events } = await h.stream({
      ask: "show me the broken pod",
      frontend_tools: [highlight, { ...highlight, name: "flash_pod", noop_response: undefined }],
    })
    expect(response.status).toBe(200)
    expect(events.map((e) => e.event)).not.toContain("approval_required")
    expect(eventOf(events, "start_tool_calling")).toMatchObject({ id: "hl_1", tool_name: "highlight_pod" })
    expect(eventOf(events, "tool_calling_result").result).toMatchObject({
      status: "success",
      data: "Highlighted.",
      params: { pod: "web-1" },
    })
    expect(eventOf(events, "ai_answer_end").analysis).toBe("I highlighted web-1.")
    const tool = providerMessages(h.fake, 1).find((m) => m.role === "tool")
    expect(String(tool?.content)).toContain("Highlighted.")
  })

  test("validated like every field: mistyped items are a 422 naming the field, wrong names a 400", async () => {
    h = await startHarness()
    const expectRefused = async (body: Record<string, unknown>, status: number, path?: string) => {
      const response = await h!.post({ ask: "x", stream: true, ...body })
      expect(response.status).toBe(status)
      const error = (await response.json()) as { error_code: number; errors?: { path: string }[] }
      expect(error.error_code).toBe(status === 422 ? 4220 : 4000)
      if (path) expect(error.errors?.map((e) => e.path).join(" ")).toContain(path)
    }
    await expectRefused({ frontend_tools: "show_pods" }, 422, "/frontend_tools")
    await expectRefused({ frontend_tools: [{ description: "no name" }] }, 422, "/frontend_tools/0")
    await expectRefused(
      { frontend_tools: [{ name: "a", description: "d", mode: "later" }] },
      422,
      "/frontend_tools/0",
    )
    await expectRefused(
      { frontend_tools: [{ function: { name: "a", parameters: "none" } }] },
      422,
      "/frontend_tools/0",
    )
    await expectRefused({ frontend_tool_results: [{ result: "r" }] }, 422, "/frontend_tool_results/0")
    await expectRefused({ frontend_tool_results: "r" }, 422, "/frontend_tool_results")
    await expectRefused({ stream: false, frontend_tools: [showPods] }, 422, "/stream")
    await expectRefused({ frontend_tools: [{ name: "show pods!", description: "d" }] }, 400)
    await expectRefused({ frontend_tools: [showPods, showPods] }, 400)
  })
})
