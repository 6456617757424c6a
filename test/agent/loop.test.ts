import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { StreamMessage } from "../../src/agent/events.ts"
import { AbortError, ModelError } from "../../src/errors.ts"
import type { ChatMessage, ToolMessage } from "../../src/llm/types.ts"
import { ask, engine } from "../support/engine.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { goneWith, liveWith } from "../support/live-processes.ts"
import {
  EchoTool,
  GuardedTool,
  SecretLeakingTool,
  SleepTool,
  ThrowingTool,
  toolset,
} from "../support/tools.ts"
import { waitFor } from "../support/wait.ts"

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

async function collect(gen: AsyncIterable<StreamMessage>): Promise<StreamMessage[]> {
  const events: StreamMessage[] = []
  for await (const e of gen) events.push(e)
  return events
}

function toolMessages(messages: ChatMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.role === "tool")
}

describe("agent loop", () => {
  test("parallel tool calls: events as tools finish, history in the model's order, figures from the provider", async () => {
    const echo = new EchoTool()
    fake.script(
      {
        content: "Checking both.",
        toolCalls: [
          { id: "slow", name: "echo", arguments: { text: "first", delayMs: 150 } },
          { id: "fast", name: "echo", arguments: { text: "second" } },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      },
      { content: "Both answered.", usage: { prompt_tokens: 300, completion_tokens: 40 } },
    )
    const llm = engine(fake, { toolsets: [toolset("test", [echo])] })
    const events = await collect(llm.callStream(ask("check")))
    const names = events.map((e) => e.event)
    expect(names).toEqual([
      "token_count",
      "ai_message",
      "start_tool_calling",
      "start_tool_calling",
      "tool_calling_result",
      "tool_calling_result",
      "token_count",
      "ai_answer_end",
    ])
    const results = events.filter((e) => e.event === "tool_calling_result")
    // The fast call finishes first and is reported first...
    expect(results.map((e) => (e.event === "tool_calling_result" ? e.data.tool_call_id : ""))).toEqual([
      "fast",
      "slow",
    ])
    // ...but the history keeps the order the model asked for.
    const end = events.at(-1)!
    if (end.event !== "ai_answer_end") throw new Error("no answer")
    expect(toolMessages(end.data.conversation_history).map((m) => m.tool_call_id)).toEqual(["slow", "fast"])
    expect(toolMessages(end.data.conversation_history)[0]!.content).toContain("echo: first")
    expect(end.data.analysis).toBe("Both answered.")
    expect(end.data.metadata.costs.num_llm_calls).toBe(2)
    expect(end.data.metadata.costs.prompt_tokens).toBe(400)
    expect(end.data.metadata.costs.completion_tokens).toBe(60)
    expect(end.data.metadata.usage).toEqual({ prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 })
    // The second request carried both results, in order.
    const second = fake.requests[1]!.body!.messages as Array<{ role: string; tool_call_id?: string }>
    expect(second.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["slow", "fast"])
  })

  test("LLMResult figures match the provider's usage and the catalog prices", async () => {
    fake.script(
      {
        toolCalls: [{ name: "echo", arguments: { text: "x" } }],
        usage: { prompt_tokens: 1000, completion_tokens: 100 },
      },
      { content: "done", usage: { prompt_tokens: 2000, completion_tokens: 200 } },
    )
    const llm = engine(fake, { toolsets: [toolset("test", [new EchoTool()])] })
    const result = await llm.call(ask("q"))
    expect(result.result).toBe("done")
    expect(result.numLlmCalls).toBe(2)
    expect(result.promptTokens).toBe(3000)
    expect(result.completionTokens).toBe(300)
    expect(result.totalTokens).toBe(3300)
    const info = llm.model.info
    expect(info.inputCostPerToken).toBeGreaterThan(0)
    expect(result.totalCost).toBeCloseTo(3000 * info.inputCostPerToken + 300 * info.outputCostPerToken, 10)
    expect(result.toolCalls?.map((c) => c.toolName)).toEqual(["echo"])
    expect(String(result.toolCalls?.[0]?.result.status)).toBe("success")
  })

  // Issue 21 item 9: events and the approval callback say tool_name, toolCalls said only toolName.
  test("a toolCalls element carries the wire names too, as events and the approval callback do", async () => {
    fake.script({ toolCalls: [{ id: "c1", name: "echo", arguments: { text: "x" } }] }, { content: "done" })
    const llm = engine(fake, { toolsets: [toolset("test", [new EchoTool()])] })
    const started: string[] = []
    for await (const event of llm.callStream(ask("q")))
      if (event.event === "start_tool_calling") started.push(event.data.tool_name)
    fake.script({ toolCalls: [{ id: "c1", name: "echo", arguments: { text: "x" } }] }, { content: "done" })
    const [call] = (await llm.call(ask("q"))).toolCalls ?? []
    expect(started).toEqual(["echo"])
    expect(call).toMatchObject({ toolCallId: "c1", toolName: "echo", tool_call_id: "c1", tool_name: "echo" })
  })

  test("unknown tool, malformed JSON, schema failure and a throwing tool become error results and the loop goes on", async () => {
    fake.script(
      {
        toolCalls: [
          { id: "a", name: "no_such_tool", arguments: {} },
          { id: "b", name: "echo", arguments: "{not json" },
          { id: "c", name: "echo", arguments: { text: 42 } },
          { id: "d", name: "broken", arguments: {} },
        ],
      },
      { content: "recovered" },
    )
    const llm = engine(fake, { toolsets: [toolset("test", [new EchoTool(), new ThrowingTool()])] })
    const result = await llm.call(ask("q"))
    expect(result.result).toBe("recovered")
    const byId = new Map(toolMessages(result.messages!).map((m) => [m.tool_call_id, m.content]))
    expect(byId.get("a")).toContain('Unknown tool "no_such_tool"')
    expect(byId.get("a")).toContain("broken, echo")
    expect(byId.get("b")).toContain("not valid JSON")
    expect(byId.get("c")).toContain("Invalid arguments for echo")
    expect(byId.get("d")).toContain("disk on fire")
    for (const content of byId.values()) expect(content.startsWith("status: error")).toBe(true)
  })

  test("an identical repeated call is refused with a reason, a different one runs", async () => {
    const echo = new EchoTool()
    fake.script(
      { toolCalls: [{ id: "1", name: "echo", arguments: { text: "same" } }] },
      {
        toolCalls: [
          { id: "2", name: "echo", arguments: { text: "same" } },
          { id: "3", name: "echo", arguments: { text: "other" } },
        ],
      },
      { content: "ok" },
    )
    const result = await engine(fake, { toolsets: [toolset("test", [echo])] }).call(ask("q"))
    expect(echo.calls.map((c) => c.text)).toEqual(["same", "other"])
    const second = toolMessages(result.messages!).find((m) => m.tool_call_id === "2")!
    expect(second.content).toContain("already called with exactly these arguments")
  })

  test("max_steps: the last step is called with tool_choice none and the request still ends with an answer", async () => {
    fake.script(
      { toolCalls: [{ name: "echo", arguments: { text: "1" } }] },
      { toolCalls: [{ name: "echo", arguments: { text: "2" } }] },
      { content: "Final answer within budget." },
    )
    const result = await engine(fake, { toolsets: [toolset("test", [new EchoTool()])], maxSteps: 3 }).call(
      ask("q"),
    )
    expect(result.numLlmCalls).toBe(3)
    expect(result.result).toBe("Final answer within budget.")
    expect(fake.requests.map((r) => r.body!.tool_choice)).toEqual(["auto", "auto", "none"])
    // Tools are still sent on the last step (the model needs their schemas to read the history).
    expect(fake.requests[2]!.body!.tools).toBeDefined()
  })

  test("max_steps: tool calls on the last step are dropped, never executed", async () => {
    const echo = new EchoTool()
    fake.script({ toolCalls: [{ name: "echo", arguments: { text: "late" } }], content: null })
    const result = await engine(fake, { toolsets: [toolset("test", [echo])], maxSteps: 1 }).call(ask("q"))
    expect(echo.calls).toHaveLength(0)
    expect(result.numLlmCalls).toBe(1)
    expect(result.result).toContain("limit of 1 steps")
    expect(result.messages!.at(-1)).toEqual({ role: "assistant", content: result.result })
  })

  test("reasoning surfaces as ai_message.reasoning", async () => {
    fake.script(
      {
        content: null,
        reasoning: "The pod restarts; look at events.",
        toolCalls: [{ name: "echo", arguments: { text: "e" } }],
      },
      { content: "ok" },
    )
    const events = await collect(
      engine(fake, { toolsets: [toolset("t", [new EchoTool()])] }).callStream(ask("q")),
    )
    const message = events.find((e) => e.event === "ai_message")
    expect(message?.event === "ai_message" && message.data.reasoning).toBe(
      "The pod restarts; look at events.",
    )
  })

  test("abort during a running tool rejects with AbortError and kills the tool's process group", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-abort-"))
    const pidFile = join(dir, "pid")
    fake.script({ toolCalls: [{ name: "sleepy", arguments: {} }] })
    const controller = new AbortController()
    const sleepy = new SleepTool(pidFile)
    const run = engine(fake, { toolsets: [toolset("t", [sleepy])] }).call(ask("q"), {
      signal: controller.signal,
    })
    // Not the pid file: a contained tool sees a read-only root and cannot write it.
    const both = await waitFor(() => (liveWith(`sleep ${sleepy.tag}`).length >= 3 ? true : undefined), {
      what: "the shell and both sleeps running",
    })
    expect(both).toBe(true)
    controller.abort()
    await expect(run).rejects.toBeInstanceOf(AbortError)
    expect(await goneWith(`sleep ${sleepy.tag}`)).toEqual([])
  })

  test("approval callback: approved calls run, denied ones become the denial text with feedback", async () => {
    const guarded = new GuardedTool()
    fake.script(
      {
        toolCalls: [
          { id: "yes", name: "restart_service", arguments: { service: "nginx" } },
          { id: "no", name: "restart_service", arguments: { service: "postgres" } },
        ],
      },
      { content: "done" },
    )
    const seen: string[] = []
    const result = await engine(fake, { toolsets: [toolset("t", [guarded])] }).call(ask("q"), {
      approvalCallback: (pending) => {
        seen.push(pending.description)
        return pending.params.service === "nginx" ? true : { approved: false, feedback: "not the database" }
      },
    })
    expect(guarded.ran).toEqual(["nginx"])
    expect(seen.sort()).toEqual(["restart_service(service=nginx)", "restart_service(service=postgres)"])
    const denied = toolMessages(result.messages!).find((m) => m.tool_call_id === "no")!
    expect(denied.content).toContain("Tool execution was denied by the user. User feedback: not the database")
  })

  test("secrets in tool output are redacted in the events API clients see, not only for the model", async () => {
    fake.script({ toolCalls: [{ id: "s", name: "leaky", arguments: {} }] }, { content: "ok" })
    const llm = engine(fake, { toolsets: [toolset("t", [new SecretLeakingTool()])] })
    const events = await collect(llm.callStream(ask("q")))
    const result = events.find((e) => e.event === "tool_calling_result")
    expect(result?.event === "tool_calling_result" && String(result.data.result.data)).toContain(
      "password: [REDACTED]",
    )
    expect(JSON.stringify(events)).not.toContain(SecretLeakingTool.VALUE)
    expect(JSON.stringify(fake.requests)).not.toContain(SecretLeakingTool.VALUE)
  })

  test("without an approval callback a call that needs approval is an error the model sees", async () => {
    const guarded = new GuardedTool()
    fake.script(
      { toolCalls: [{ id: "x", name: "restart_service", arguments: { service: "nginx" } }] },
      { content: "ok" },
    )
    const result = await engine(fake, { toolsets: [toolset("t", [guarded])] }).call(ask("q"))
    expect(guarded.ran).toEqual([])
    const msg = toolMessages(result.messages!)[0]!
    expect(msg.content).toContain("status: error")
    expect(msg.content).toContain("approval is not enabled")
  })
})

describe("provider failures", () => {
  test("429 then success is retried", async () => {
    fake.script({ status: 429, headers: { "retry-after": "0" } }, { content: "after retry" })
    const result = await engine(fake).call(ask("q"))
    expect(result.result).toBe("after retry")
    expect(fake.requests).toHaveLength(2)
  })

  test("429 throughout is classified as a rate limit (5204)", async () => {
    fake.script(...Array.from({ length: 4 }, () => ({ status: 429, headers: { "retry-after": "0" } })))
    const error = await engine(fake)
      .call(ask("q"))
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ModelError)
    expect((error as ModelError).kind).toBe("rate_limit")
    expect((error as ModelError).errorCode).toBe(5204)
  })

  test("500 throughout is classified as unavailable (502)", async () => {
    fake.script(...Array.from({ length: 4 }, () => ({ status: 500 })))
    const error = await engine(fake)
      .call(ask("q"))
      .catch((e: unknown) => e)
    expect((error as ModelError).kind).toBe("unavailable")
    expect((error as ModelError).status).toBe(502)
  })

  test("a provider that never answers times out", async () => {
    fake.script({ hang: true })
    const error = await engine(fake, { timeoutMs: 300, maxRetries: 0 })
      .call(ask("q"))
      .catch((e: unknown) => e)
    expect((error as ModelError).kind).toBe("timeout")
  })
})
