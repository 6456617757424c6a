import { afterEach, describe, expect, test } from "bun:test"
import type { EngineEvent, StreamMessage } from "../../src/agent/events.ts"
import { AbortError } from "../../src/errors.ts"
import { ask, engine } from "../support/engine.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"
import { eventOf, type Harness, parseFrames, startHarness } from "./harness.ts"

let h: Harness | undefined
let fake: FakeProvider | undefined
afterEach(async () => {
  await h?.stop()
  await fake?.stop()
  h = undefined
  fake = undefined
})

const deltas = (events: readonly StreamMessage[]) =>
  events.flatMap((e) => (e.event === "ai_message_delta" ? [e.data.content] : []))

describe("stream_text over HTTP (CONTRACT §9)", () => {
  test("deltas arrive before ai_answer_end and add up to the answer; tool calls streamed in pieces still run", async () => {
    h = await startHarness()
    h.fake.script(
      {
        content: "Let me write a note.",
        toolCalls: [{ id: "call_n", name: "note", arguments: { text: "streamed-args" } }],
        usage: { prompt_tokens: 50, completion_tokens: 7 },
      },
      {
        content: "The service is **healthy**: all 3 pods run.",
        chunks: ["The service ", "is **healthy**", ": all 3 ", "pods run."],
        usage: { prompt_tokens: 90, completion_tokens: 11 },
      },
    )
    const { events } = await h.stream({ ask: "is it healthy?", stream_text: true })
    const names = events.map((e) => e.event)
    // Pieces that reach the route together may go out as one event, so counts vary; the order does not.
    const firstCount = names.indexOf("token_count")
    const result = names.indexOf("tool_calling_result")
    expect(firstCount).toBeGreaterThan(0)
    expect(names.slice(0, firstCount).every((n) => n === "ai_message_delta")).toBe(true)
    expect(names.slice(firstCount, result + 1)).toEqual([
      "token_count",
      "ai_message",
      "start_tool_calling",
      "tool_calling_result",
    ])
    const answerDeltas = names.slice(result + 1, -2)
    expect(answerDeltas.length).toBeGreaterThan(0)
    expect(answerDeltas.every((n) => n === "ai_message_delta")).toBe(true)
    expect(names.slice(-2)).toEqual(["token_count", "ai_answer_end"])
    // The notes of the tool step, then the answer, each in pieces.
    expect(deltas(events.slice(0, firstCount)).join("")).toBe("Let me write a note.")
    const answer = eventOf(events, "ai_answer_end").analysis
    expect(deltas(events.slice(result + 1)).join("")).toBe(answer)
    expect(answer).toBe("The service is **healthy**: all 3 pods run.")
    // Tool-call arguments arrived in two halves and were put back together.
    expect(eventOf(events, "tool_calling_result").result.params).toEqual({ text: "streamed-args" })
    // Usage comes from the stream's last chunk (stream_options.include_usage).
    expect(eventOf(events, "ai_answer_end").metadata.usage).toEqual({
      prompt_tokens: 90,
      completion_tokens: 11,
      total_tokens: 101,
    })
    expect(eventOf(events, "ai_answer_end").metadata.costs.completion_tokens).toBe(18)
    for (const request of h.fake.requests) {
      expect(request.body?.stream).toBe(true)
      expect(request.body?.stream_options).toEqual({ include_usage: true })
    }
  })

  test("without stream_text the stream is exactly the spec's: no delta events, no streamed provider call", async () => {
    h = await startHarness()
    h.fake.script({ content: "All good." })
    const { events } = await h.stream({ ask: "status?" })
    expect(events.map((e) => e.event)).toEqual(["token_count", "ai_answer_end"])
    expect(h.fake.requests[0]?.body?.stream).toBeUndefined()
    // stream_text: false is the same.
    h.fake.script({ content: "All good." })
    const again = await h.stream({ ask: "status?", stream_text: false })
    expect(again.events.map((e) => e.event)).toEqual(["token_count", "ai_answer_end"])
  })

  test("stream_text on a non-stream request changes nothing in the JSON body", async () => {
    h = await startHarness()
    h.fake.script({ content: "Fine." })
    const response = await h.post({ ask: "status?", stream_text: true })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { analysis: string }).analysis).toBe("Fine.")
  })

  test("a client that hangs up mid-answer aborts the streamed provider call", async () => {
    h = await startHarness()
    h.fake.script({ content: "one two three four", hangAfterChunks: 2 })
    const client = new AbortController()
    const response = await h.post({ ask: "go", stream: true, stream_text: true }, {}, client.signal)
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    let text = ""
    // Two pieces were written while the provider still holds the call open.
    while (deltas(parseFrames(text.slice(0, text.lastIndexOf("\n\n") + 2)).events).join("") !== "one two ") {
      const { value, done } = await reader.read()
      if (done) throw new Error(`stream ended early: ${text}`)
      text += new TextDecoder().decode(value)
    }
    expect(h.runs.size).toBe(1)
    client.abort()
    await waitFor(() => h?.runs.size === 0, { timeoutMs: 5_000 })
  })
})

describe("streamText in the library", () => {
  test("callStream yields deltas while the provider is still writing; abort ends it with AbortError", async () => {
    fake = await startFakeProvider()
    fake.script({ content: "alpha beta gamma", hangAfterChunks: 2 })
    const controller = new AbortController()
    const events = engine(fake).callStream(ask("q"), { streamText: true, signal: controller.signal })
    const seen: EngineEvent[] = []
    let failure: unknown
    try {
      for await (const event of events) {
        seen.push(event)
        if (deltas(seen).join("") === "alpha beta ") controller.abort()
      }
    } catch (error) {
      failure = error
    }
    expect(failure).toBeInstanceOf(AbortError)
    expect(seen.map((e) => e.event)).toEqual(seen.map(() => "ai_message_delta"))
  })

  test("a failure before the first delta is retried; call() returns the same result as without streaming", async () => {
    fake = await startFakeProvider()
    fake.script(
      { status: 503 },
      { content: "streamed answer", reasoning: "thought", usage: { prompt_tokens: 3, completion_tokens: 2 } },
    )
    const events: EngineEvent[] = []
    const result = await engine(fake).run(ask("q"), { streamText: true }, (e) => events.push(e))
    expect(result.answer).toBe("streamed answer")
    expect(deltas(events).join("")).toBe("streamed answer")
    expect(result.metadata.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 })
    expect(fake.requests).toHaveLength(2)

    fake.script({ content: "plain answer" })
    const plain: EngineEvent[] = []
    const unstreamed = await engine(fake).run(ask("q"), {}, (e) => plain.push(e))
    expect(unstreamed.answer).toBe("plain answer")
    expect(deltas(plain)).toEqual([])
  })

  test("a provider that stalls after writing text times out, without a retry (the text would be written twice)", async () => {
    fake = await startFakeProvider()
    fake.script({ content: "half of it", hangAfterChunks: 1 }, { content: "should not be asked" })
    const controller = new AbortController()
    const events = engine(fake, { timeoutMs: 1_000 }).callStream(ask("q"), {
      streamText: true,
      signal: controller.signal,
    })
    let failure: unknown
    try {
      for await (const _ of events) {
        // The provider holds after the first piece; the per-attempt timeout then fails the call.
      }
    } catch (error) {
      failure = error
    }
    expect((failure as Error).name).toBe("ModelError")
    expect((failure as Error).message).toContain("timed out")
    expect(fake.requests).toHaveLength(1)
    expect(fake.pending()).toBe(1)
  })
})
