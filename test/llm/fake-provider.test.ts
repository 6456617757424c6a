import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import OpenAI from "openai"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

// The fake is shared by every test of the project, so its own behaviour is pinned here through
// the real openai client.
let fake: FakeProvider
let client: OpenAI

beforeEach(async () => {
  fake = await startFakeProvider()
  client = new OpenAI({ apiKey: "test", baseURL: fake.url, maxRetries: 0 })
})
afterEach(() => fake.stop())

const ask = (signal?: AbortSignal) =>
  client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }, { signal })

describe("fake provider", () => {
  test("answers scripted content, tool calls and reasoning, and records the request", async () => {
    fake.script(
      { content: "hello" },
      {
        toolCalls: [
          { name: "echo", arguments: { x: 1 } },
          { id: "mine", name: "raw", arguments: "{bad" },
        ],
        reasoning: "r",
      },
    )
    const first = await ask()
    expect(first.choices[0]?.message.content).toBe("hello")
    expect(first.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 })
    const second = await ask()
    const message = second.choices[0]?.message
    expect(message?.content).toBeNull()
    expect(message?.tool_calls?.map((c) => c.id)).toEqual(["call_1", "mine"])
    expect(message?.tool_calls?.[1]).toMatchObject({ function: { name: "raw", arguments: "{bad" } })
    expect((message as unknown as { reasoning_content: string }).reasoning_content).toBe("r")
    expect(second.choices[0]?.finish_reason).toBe("tool_calls")
    expect(fake.requests).toHaveLength(2)
    expect(fake.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      body: { model: "m" },
    })
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer test")
  })

  test("function steps see the request", async () => {
    fake.script((req) => ({ content: `got ${(req.body?.messages as unknown[] | undefined)?.length}` }))
    expect((await ask()).choices[0]?.message.content).toBe("got 1")
  })

  test("error steps carry status and headers; an exhausted script fails loudly", async () => {
    fake.script({ status: 429, headers: { "retry-after": "7" } })
    const error = await ask().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toBe("7")
    const exhausted = await ask().catch((e: unknown) => e)
    expect(String(exhausted)).toContain("fake provider: script exhausted")
  })

  test("a hang is released by the client's abort", async () => {
    fake.script({ hang: true })
    const started = Date.now()
    const error = await ask(AbortSignal.timeout(100)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIUserAbortError)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  test("a reset drops the connection mid-response", async () => {
    fake.script({ reset: true }, { content: "after" })
    const error = await ask().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError)
    expect((await ask()).choices[0]?.message.content).toBe("after")
  })

  test("lists models", async () => {
    const page = await client.models.list()
    expect(page.data.map((m) => m.id)).toEqual(["fake-model"])
  })
})
