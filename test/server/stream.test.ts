import { afterEach, describe, expect, test } from "bun:test"
import { join } from "node:path"
import type { Metadata } from "../../src/agent/events.ts"
import type { ChatMessage } from "../../src/llm/types.ts"
import type { RecordedRequest } from "../support/fake-provider.ts"
import { liveInGroup } from "../support/live-processes.ts"
import { waitFor, waitForPid } from "../support/wait.ts"
import { eventOf, type Harness, parseFrames, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

const TOKEN_KEYS = [
  "total_tokens",
  "tools_tokens",
  "system_tokens",
  "user_tokens",
  "tools_to_call_tokens",
  "assistant_tokens",
  "other_tokens",
]

function expectMetadata(metadata: Metadata): void {
  expect(Object.keys(metadata.usage).sort()).toEqual(["completion_tokens", "prompt_tokens", "total_tokens"])
  expect(metadata.usage.total_tokens).toBe(metadata.usage.prompt_tokens + metadata.usage.completion_tokens)
  expect(Object.keys(metadata.tokens).sort()).toEqual([...TOKEN_KEYS].sort())
  for (const key of TOKEN_KEYS)
    expect(Number.isInteger(metadata.tokens[key as keyof Metadata["tokens"]])).toBe(true)
  expect(metadata.max_tokens).toBe(128_000) // gpt-4o in the catalog
  expect(Number.isInteger(metadata.max_output_tokens)).toBe(true)
  expect(metadata.max_output_tokens).toBeGreaterThan(0)
}

describe("SSE stream", () => {
  test("a turn with two parallel tool calls: every event and every field, framed per CONTRACT §5", async () => {
    // A small per-tool budget so one result is cut and metadata.truncations appears.
    h = await startHarness({ env: { TOOL_MAX_ALLOCATED_CONTEXT_WINDOW_TOKENS: "100" } })
    // About 600 tokens: well over the budget of 100, so this is the result that is cut.
    const long = "lorem ipsum dolor sit amet ".repeat(120)
    h.fake.script(
      {
        content: "Looking at both.",
        reasoning: "Two independent checks.",
        toolCalls: [
          { id: "call_a", name: "note", arguments: { text: long } },
          { id: "call_b", name: "note", arguments: { text: "short" } },
        ],
        usage: { prompt_tokens: 120, completion_tokens: 30 },
      },
      { content: "Both **done**.", usage: { prompt_tokens: 400, completion_tokens: 12 } },
    )
    const { response, text, frames, events } = await h.stream({ ask: "check two things" })

    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    expect(response.headers.get("cache-control")).toBe("no-cache")
    expect(response.headers.get("x-accel-buffering")).toBe("no")
    // Framing: `event: <name>\ndata: <one-line JSON>\n\n`, nothing else.
    expect(text.endsWith("\n\n")).toBe(true)
    for (const f of frames) expect(f.raw).toMatch(/^event: [a-z_]+\ndata: [^\n]+$/)

    expect(events.map((e) => e.event)).toEqual([
      "token_count",
      "ai_message",
      "start_tool_calling",
      "start_tool_calling",
      "tool_calling_result",
      "tool_calling_result",
      "token_count",
      "ai_answer_end",
    ])

    // token_count after each LLM iteration, with the provider's usage of that iteration.
    const first = eventOf(events, "token_count", 0)
    expect(Object.keys(first)).toEqual(["metadata"])
    expectMetadata(first.metadata)
    expect(first.metadata.usage).toEqual({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 })
    expect(eventOf(events, "token_count", 1).metadata.usage.prompt_tokens).toBe(400)

    const message = eventOf(events, "ai_message")
    expect(Object.keys(message).sort()).toEqual(["content", "metadata", "reasoning"])
    expect(message.content).toBe("Looking at both.")
    expect(message.reasoning).toBe("Two independent checks.")
    expectMetadata(message.metadata)

    const starts = [eventOf(events, "start_tool_calling", 0), eventOf(events, "start_tool_calling", 1)]
    expect(starts).toEqual([
      { tool_name: "note", id: "call_a" },
      { tool_name: "note", id: "call_b" },
    ])

    const results = [eventOf(events, "tool_calling_result", 0), eventOf(events, "tool_calling_result", 1)]
    expect(results.map((r) => r.tool_call_id).sort()).toEqual(["call_a", "call_b"])
    for (const r of results) {
      expect(Object.keys(r).sort()).toEqual(["description", "name", "result", "role", "tool_call_id"])
      expect(r.role).toBe("tool")
      expect(r.name).toBe("note")
      expect(typeof r.description).toBe("string")
      expect(r.description).toContain("echo")
      expect(Object.keys(r.result).sort()).toEqual(["data", "error", "params", "status"])
      expect(r.result.status).toBe("success")
      expect(r.result.error).toBeNull()
      expect(typeof r.result.data).toBe("string")
    }
    const short = results.find((r) => r.tool_call_id === "call_b")
    expect(short?.result.params).toEqual({ text: "short" })
    expect(short?.result.data).toContain("noted short")

    const end = eventOf(events, "ai_answer_end")
    expect(events.at(-1)?.event).toBe("ai_answer_end")
    expect(Object.keys(end).sort()).toEqual([
      "analysis",
      "conversation_history",
      "follow_up_actions",
      "metadata",
    ])
    expect(end.analysis).toBe("Both **done**.")
    expectMetadata(end.metadata)
    expect(end.metadata.costs.num_llm_calls).toBe(2)
    // The long result was cut to the budget and reported.
    expect(end.metadata.truncations).toHaveLength(1)
    const cut = end.metadata.truncations?.[0]
    expect(cut).toMatchObject({ tool_call_id: "call_a", start_index: 0, tool_name: "note" })
    expect(cut?.end_index).toBeGreaterThan(0)
    expect(cut?.original_token_count).toBeGreaterThan(100)
    // A first turn gets the configured follow-up actions, each with the spec's four fields.
    expect(end.follow_up_actions?.length).toBeGreaterThan(0)
    for (const a of end.follow_up_actions ?? []) {
      expect(Object.keys(a).sort()).toEqual(["action_label", "id", "pre_action_notification_text", "prompt"])
    }
    // History: system, user, assistant with both calls, both results in the model's order, answer.
    const history = end.conversation_history
    expect(history.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"])
    expect(
      history.filter((m) => m.role === "tool").map((m) => (m.role === "tool" ? m.tool_call_id : "")),
    ).toEqual(["call_a", "call_b"])
    const cutMessage = history[3]
    expect(cutMessage?.role === "tool" && cutMessage.content.endsWith("[TRUNCATED]")).toBe(true)
    expect(h.metrics.truncations.get({ tool: "note" })).toBe(1)
    expect(h.metrics.llmCalls.get({ model: "openai/gpt-4o" })).toBe(2)
  })

  test(": ping comments while idle, at the injected interval", async () => {
    h = await startHarness({ app: { pingIntervalMs: 40 } })
    h.fake.script({ content: "late answer", delayMs: 400 })
    const { text, events } = await h.stream({ ask: "slow" })
    const beforeFirstEvent = text.slice(0, text.indexOf("event:"))
    expect(beforeFirstEvent.split(": ping\n\n").length - 1).toBeGreaterThanOrEqual(3)
    expect(events.at(-1)?.event).toBe("ai_answer_end")
  })

  test("a provider rate limit after the stream opened becomes an error event 5204 and the stream ends", async () => {
    h = await startHarness()
    h.fake.script(...Array.from({ length: 6 }, () => ({ status: 429, headers: { "retry-after-ms": "1" } })))
    const { response, events } = await h.stream({ ask: "anything" })
    expect(response.status).toBe(200)
    expect(events.map((e) => e.event)).toEqual(["error"])
    const error = eventOf(events, "error")
    expect(Object.keys(error).sort()).toEqual(["description", "error_code", "msg", "success"])
    expect(error.error_code).toBe(5204)
    expect(error.success).toBe(false)
    expect(error.description).toContain("429")
  })

  test("any other failure after the stream opened is an error event with code 1, after the events so far", async () => {
    h = await startHarness()
    h.fake.script(
      { toolCalls: [{ id: "c1", name: "note", arguments: { text: "a" } }] },
      ...Array.from({ length: 6 }, () => ({ status: 503, headers: { "retry-after-ms": "1" } })),
    )
    const { events } = await h.stream({ ask: "anything" })
    expect(events.map((e) => e.event)).toEqual([
      "token_count",
      "start_tool_calling",
      "tool_calling_result",
      "error",
    ])
    expect(eventOf(events, "error")).toMatchObject({ error_code: 1, success: false })
    expect(h.metrics.chatErrors.get({ error_code: "1" })).toBe(1)
  })

  test("a client that disconnects mid-tool stops the run: the tool's process group is killed", async () => {
    h = await startHarness()
    const harness = h
    let later: RecordedRequest[] = []
    harness.fake.script({ toolCalls: [{ id: "n1", name: "nap", arguments: {} }] }, (request) => {
      later = [request]
      return { content: "should never be asked" }
    })
    const abort = new AbortController()
    const response = await fetch(`${harness.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ask: "sleep", stream: true }),
      signal: abort.signal,
    })
    const reader = response.body?.getReader()
    if (!reader) throw new Error("no body")
    const pidFile = join(harness.dir, "nap.pid")
    let seen = ""
    while (!seen.includes("start_tool_calling")) {
      const { value, done } = await reader.read()
      if (done) throw new Error("stream ended early")
      seen += new TextDecoder().decode(value)
    }
    const pgid = await waitForPid(pidFile)
    expect(liveInGroup(pgid).length).toBeGreaterThan(0)
    expect(harness.runs.size).toBe(1)

    abort.abort()
    await waitFor(() => liveInGroup(pgid).length === 0, { what: "the tool's group to end" })
    expect(liveInGroup(pgid)).toEqual([])
    await waitFor(() => harness.runs.size === 0, { what: "the run to end" })
    expect(harness.runs.size).toBe(0)
    expect(harness.metrics.activeStreams.get()).toBe(0)
    // The run stopped: the model was not called again.
    expect(later).toEqual([])
    expect(harness.fake.pending()).toBe(1)
  })

  test("50 concurrent streams all complete with their own, non-interleaved histories", async () => {
    h = await startHarness()
    const n = 50
    // Steps answer from the request itself, so concurrent conversations can share one script.
    const reply = (request: RecordedRequest) => {
      const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>
      const question = String(messages.find((m) => m.role === "user")?.content ?? "")
      const id = /q-(\d+)/.exec(question)?.[1] ?? "?"
      if (messages.at(-1)?.role === "tool") return { content: `answer-${id}` }
      return { toolCalls: [{ name: "note", arguments: { text: `t-${id}` } }] }
    }
    h.fake.script(...Array.from({ length: n * 2 }, () => reply))
    const harness = h
    const results = await Promise.all(Array.from({ length: n }, (_, i) => harness.stream({ ask: `q-${i}` })))
    results.forEach(({ events, response }, i) => {
      expect(response.status).toBe(200)
      const end = eventOf(events, "ai_answer_end")
      expect(end.analysis).toBe(`answer-${i}`)
      const history: ChatMessage[] = end.conversation_history
      expect(history.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"])
      expect(String(history[1]?.content)).toContain(`q-${i}`)
      const call = history[2]?.role === "assistant" ? history[2].tool_calls?.[0] : undefined
      const result = history[3]
      expect(result?.role === "tool" && result.tool_call_id).toBe(call?.id ?? "missing")
      expect(result?.role === "tool" && result.content).toContain(`noted t-${i}`)
      const started = eventOf(events, "start_tool_calling")
      expect(started.id).toBe(call?.id ?? "missing")
    })
    expect(h.metrics.activeStreams.get()).toBe(0)
    expect(h.metrics.toolCalls.get({ tool: "note", status: "success" })).toBe(n)
  }, 60_000)

  test("the parser helper rejects multi-line data (guards the framing assertions above)", () => {
    expect(() => parseFrames("event: x\ndata: 1\ndata: 2\n\n")).toThrow()
  })
})
