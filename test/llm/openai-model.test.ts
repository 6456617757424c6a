import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { AbortError, ModelError } from "../../src/errors.ts"
import { createChatModel } from "../../src/llm/factory.ts"
import type { ChatModel, CompletionRequest, ToolSchema } from "../../src/llm/types.ts"
import { setLogSink } from "../../src/log.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

let fake: FakeProvider
let restoreSink: (line: string) => void

beforeEach(async () => {
  fake = await startFakeProvider()
  restoreSink = setLogSink(() => {}) // retry warnings are expected here
})
afterEach(async () => {
  setLogSink(restoreSink)
  await fake.stop()
})

function model(
  options: { id?: string; timeoutMs?: number; maxRetries?: number; temperature?: number } = {},
): ChatModel {
  return createChatModel({
    id: options.id ?? "openai/gpt-4.1-mini",
    apiKey: "sk-test",
    apiBase: fake.url,
    env: {},
    retryBaseDelayMs: 1,
    maxRetries: options.maxRetries ?? 2,
    timeoutMs: options.timeoutMs,
    temperature: options.temperature,
  })
}

const ECHO: ToolSchema = {
  type: "function",
  function: { name: "echo", description: "Echo", parameters: { type: "object", properties: {} } },
}
const ask: CompletionRequest = { messages: [{ role: "user", content: "hi" }] }

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure")
    },
    (error: unknown) => error,
  )
}

describe("completion mapping", () => {
  test("content, usage and the key reach the caller", async () => {
    fake.script({ content: "hello", usage: { prompt_tokens: 42, completion_tokens: 7 } })
    const completion = await model().complete(ask)
    expect(completion).toEqual({
      content: "hello",
      reasoning: null,
      toolCalls: [],
      finishReason: "stop",
      usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
    })
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer sk-test")
    expect(fake.requests[0]?.body).toMatchObject({
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: "hi" }],
    })
  })

  test("tool calls and reasoning are mapped; missing usage is zeros", async () => {
    fake.script({
      toolCalls: [
        { name: "echo", arguments: { x: 1 } },
        { id: "c2", name: "echo", arguments: "{not json" },
      ],
      reasoning: "let me think",
      usage: null,
    })
    const completion = await model().complete({ ...ask, tools: [ECHO] })
    expect(completion.content).toBeNull()
    expect(completion.reasoning).toBe("let me think")
    expect(completion.finishReason).toBe("tool_calls")
    expect(completion.toolCalls).toEqual([
      { id: "call_1", type: "function", function: { name: "echo", arguments: '{"x":1}' } },
      { id: "c2", type: "function", function: { name: "echo", arguments: "{not json" } },
    ])
    expect(completion.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 })
  })

  test("OpenRouter-style `reasoning` and non-function tool calls", async () => {
    fake.script({
      body: {
        choices: [
          {
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: "ok",
              reasoning: "via reasoning",
              tool_calls: [
                { id: "x", type: "custom", custom: { name: "grammar", input: "..." } },
                { type: "function", function: { name: "echo", arguments: "{}" } },
              ],
            },
          },
        ],
      },
    })
    const completion = await model().complete(ask)
    expect(completion.reasoning).toBe("via reasoning")
    expect(completion.toolCalls).toHaveLength(1)
    expect(completion.toolCalls[0]?.function.name).toBe("echo")
    expect(completion.toolCalls[0]?.id).toMatch(/^call_/) // generated: the result must pair with it
  })
})

describe("request body", () => {
  test("internal fields are stripped and empty system messages dropped", async () => {
    fake.script({ content: "ok" })
    await model({ temperature: 0 }).complete({
      messages: [
        { role: "system", content: "" },
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: "data:image/png;base64,AA", format: "image/png" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          reasoning: "secret thoughts",
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: { name: "echo", arguments: "{}" },
              pending_approval: { signature: "sig" },
            },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "done", name: "echo" },
      ],
      tools: [ECHO],
      toolChoice: "none",
      maxOutputTokens: 100,
    })
    const body = fake.requests[0]?.body
    expect(body?.messages).toEqual([
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA" } }] },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "echo", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "done" },
    ])
    expect(body).toMatchObject({ tool_choice: "none", max_tokens: 100, temperature: 0 })
    expect(JSON.stringify(body)).not.toContain("pending_approval")
    expect(JSON.stringify(body)).not.toContain("secret thoughts")
  })

  test("no tool_choice without tools; response_format passes through", async () => {
    fake.script({ content: "{}" })
    const responseFormat = {
      type: "json_schema" as const,
      json_schema: { name: "answer", strict: true, schema: { type: "object" } },
    }
    await model().complete({ ...ask, tools: [], toolChoice: "none", responseFormat })
    const body = fake.requests[0]?.body
    expect(body).not.toHaveProperty("tool_choice")
    expect(body).not.toHaveProperty("tools")
    expect(body?.response_format).toEqual(responseFormat)
  })

  test("OpenAI reasoning models get max_completion_tokens and no temperature", async () => {
    fake.script({ content: "ok" }, { content: "ok" })
    await model({ id: "openai/o4-mini", temperature: 0 }).complete({ ...ask, maxOutputTokens: 50 })
    await model({ id: "openai/gpt-5-mini", temperature: 0 }).complete({ ...ask, maxOutputTokens: 60 })
    expect(fake.requests[0]?.body).toMatchObject({ max_completion_tokens: 50 })
    expect(fake.requests[0]?.body).not.toHaveProperty("temperature")
    expect(fake.requests[0]?.body).not.toHaveProperty("max_tokens")
    expect(fake.requests[1]?.body).toMatchObject({ max_completion_tokens: 60 })
  })
})

describe("retries and failures", () => {
  test("429 then success is retried, honouring retry-after", async () => {
    fake.script({ status: 429, headers: { "retry-after": "0" } }, { content: "finally" })
    const started = Date.now()
    const completion = await model().complete(ask)
    expect(completion.content).toBe("finally")
    expect(fake.requests).toHaveLength(2)
    expect(Date.now() - started).toBeLessThan(1000)
  })

  test("429 throughout becomes a rate_limit ModelError with code 5204", async () => {
    fake.script(...Array.from({ length: 3 }, () => ({ status: 429, headers: { "retry-after-ms": "1" } })))
    const error = await failure(model({ maxRetries: 2 }).complete(ask))
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ kind: "rate_limit", errorCode: 5204, status: 429, providerStatus: 429 })
    expect(fake.requests).toHaveLength(3)
    expect(fake.pending()).toBe(0)
  })

  test("500 throughout becomes unavailable, with the provider's message", async () => {
    fake.script(
      ...Array.from({ length: 3 }, () => ({ status: 500, body: { error: { message: "upstream melted" } } })),
    )
    const error = await failure(model({ maxRetries: 2 }).complete(ask))
    expect(error).toMatchObject({ kind: "unavailable", errorCode: 5020, status: 502 })
    expect((error as Error).message).toContain("upstream melted")
    expect((error as Error).message).toContain("after 3 attempts")
  })

  test("a dropped connection is retried", async () => {
    fake.script({ reset: true }, { content: "recovered" })
    expect((await model().complete(ask)).content).toBe("recovered")
  })

  test("a provider that never answers times out", async () => {
    fake.script({ hang: true }, { hang: true })
    const error = await failure(model({ timeoutMs: 100, maxRetries: 1 }).complete(ask))
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ kind: "timeout" })
    expect(fake.requests).toHaveLength(2)
  })

  test("an abort during a hung request surfaces as AbortError, quickly", async () => {
    fake.script({ hang: true })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const started = Date.now()
    const error = await failure(model().complete(ask, controller.signal))
    expect(error).toBeInstanceOf(AbortError)
    expect(error).not.toBeInstanceOf(ModelError)
    expect(Date.now() - started).toBeLessThan(1000)
  })

  test("an abort during the retry wait ends the wait", async () => {
    fake.script({ status: 503, headers: { "retry-after": "30" } })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const started = Date.now()
    expect(await failure(model().complete(ask, controller.signal))).toBeInstanceOf(AbortError)
    expect(Date.now() - started).toBeLessThan(1000)
    expect(fake.requests).toHaveLength(1)
  })

  test("401 is an auth error, not retried", async () => {
    fake.script({ status: 401, body: { error: { message: "Incorrect API key provided" } } })
    const error = await failure(model().complete(ask))
    expect(error).toMatchObject({ kind: "auth", errorCode: 5020 })
    expect((error as Error).message).toContain("Incorrect API key provided")
    expect(fake.requests).toHaveLength(1)
  })

  test("400 is a bad request carrying the provider's message", async () => {
    fake.script({ status: 400, body: { error: { message: "tools[0].function.name is invalid" } } })
    const error = await failure(model().complete(ask))
    expect(error).toMatchObject({ kind: "bad_request", providerStatus: 400 })
    expect((error as Error).message).toContain("tools[0].function.name is invalid")
    expect(fake.requests).toHaveLength(1)
  })

  test("unparsable body and empty choices are invalid responses", async () => {
    fake.script({ body: "{this is not json" }, { body: { choices: [] } })
    expect(await failure(model().complete(ask))).toMatchObject({ kind: "invalid_response" })
    expect(await failure(model().complete(ask))).toMatchObject({ kind: "invalid_response" })
  })
})

describe("azure", () => {
  test("routes to the deployment with the API version and an api-key header", async () => {
    fake.script({ content: "from azure" })
    // The SDK would read this itself and refuse it next to an Azure endpoint.
    const previous = process.env.OPENAI_BASE_URL
    process.env.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    const azure = createChatModel({
      id: "azure/my-gpt4o",
      apiKey: "az-key",
      apiBase: fake.url.replace(/\/v1$/, ""),
      apiVersion: "2024-10-21",
      env: {},
    })
    if (previous === undefined) delete process.env.OPENAI_BASE_URL
    else process.env.OPENAI_BASE_URL = previous
    expect((await azure.complete(ask)).content).toBe("from azure")
    const request = fake.requests[0]
    expect(request?.path).toBe("/openai/deployments/my-gpt4o/chat/completions")
    expect(request?.search).toBe("?api-version=2024-10-21")
    expect(request?.headers["api-key"]).toBe("az-key")
  })
})
