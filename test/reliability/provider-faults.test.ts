/**
 * Provider faults against the engine, through the real openai client and the fake provider's real
 * HTTP: each ends in a ModelError of the right kind or in a recovered loop, never a hung request.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { ModelError, type ModelErrorKind } from "../../src/errors.ts"
import type { ChatMessage } from "../../src/llm/types.ts"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { engine } from "../support/engine.ts"
import { type FakeProvider, type FakeStep, startFakeProvider } from "../support/fake-provider.ts"
import { EchoTool, toolset } from "../support/tools.ts"
import { settle, withinDeadline } from "./deadline.ts"

const ASK: ChatMessage[] = [
  { role: "system", content: "You are a test agent." },
  { role: "user", content: "What is wrong?" },
]
const DEADLINE_MS = 8_000

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

async function failsWith(
  kind: ModelErrorKind,
  steps: FakeStep[],
  options: Parameters<typeof engine>[1] = {},
) {
  fake.script(...steps)
  const llm = engine(fake, { maxRetries: 1, timeoutMs: 1_000, ...options })
  const outcome = await withinDeadline("engine call", DEADLINE_MS, settle(llm.call(ASK)))
  expect(outcome.ok).toBe(false)
  if (outcome.ok) return
  expect(outcome.error).toBeInstanceOf(ModelError)
  expect((outcome.error as ModelError).kind).toBe(kind)
  return outcome.error as ModelError
}

describe("provider faults end in a classified ModelError", () => {
  test("a provider that never answers times out, on every attempt", async () => {
    const error = await failsWith("timeout", [{ hang: true }, { hang: true }], { timeoutMs: 300 })
    expect(error?.message).toContain("timed out")
    expect(fake.requests).toHaveLength(2)
  })

  test("a connection reset mid-response, on every attempt, is `unavailable`", async () => {
    await failsWith("unavailable", [{ reset: true }, { reset: true }])
    expect(fake.requests).toHaveLength(2)
  })

  test("a 200 whose body is not JSON is `invalid_response`, not retried", async () => {
    await failsWith("invalid_response", [{ body: "<html>upstream proxy error</html>" }, { content: "never" }])
    expect(fake.requests).toHaveLength(1)
  })

  test("a truncated JSON body is `invalid_response`", async () => {
    await failsWith("invalid_response", [
      {
        body: '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis',
      },
    ])
  })

  test("empty `choices` is `invalid_response`", async () => {
    const error = await failsWith("invalid_response", [
      { body: { id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4o", choices: [] } },
    ])
    expect(error?.message).toContain("without choices")
  })

  test("a JSON body that is not an object (null, array, string) is `invalid_response`", async () => {
    for (const body of ["null", "[]", '"ok"']) {
      await failsWith("invalid_response", [{ body }])
    }
  })

  test("rate limiting that outlasts the retries is `rate_limit`", async () => {
    await failsWith("rate_limit", [
      { status: 429, headers: { "retry-after-ms": "1" } },
      { status: 429, headers: { "retry-after-ms": "1" } },
    ])
  })

  test("bad credentials are `auth` and are not retried", async () => {
    await failsWith("auth", [{ status: 401 }, { content: "never" }])
    expect(fake.requests).toHaveLength(1)
  })
})

describe("faults the loop recovers from", () => {
  test("a reset, then a good answer: the retry recovers", async () => {
    fake.script({ reset: true }, { content: "All good." })
    const result = await withinDeadline("engine call", DEADLINE_MS, engine(fake, { maxRetries: 2 }).call(ASK))
    expect(result.result).toBe("All good.")
    expect(fake.requests).toHaveLength(2)
  })

  test("a 503, then a good answer: the retry recovers", async () => {
    fake.script({ status: 503 }, { content: "All good." })
    const result = await withinDeadline("engine call", DEADLINE_MS, engine(fake, { maxRetries: 2 }).call(ASK))
    expect(result.result).toBe("All good.")
  })

  test("tool-call arguments that are not JSON go back to the model as an error result", async () => {
    const echo = new EchoTool()
    fake.script(
      { toolCalls: [{ name: "echo", arguments: '{"text": "unterminated' }] },
      { content: "Recovered." },
    )
    const llm = engine(fake, { toolsets: [toolset("t", [echo])] })
    const result = await withinDeadline("engine call", DEADLINE_MS, llm.call(ASK))
    expect(result.result).toBe("Recovered.")
    expect(echo.calls).toHaveLength(0)
    expect(result.toolCalls?.[0]?.result.status).toBe(ToolResultStatus.ERROR)
    const sent = fake.requests[1]?.body?.messages as Array<{ role: string; content: string }>
    expect(sent.at(-1)?.role).toBe("tool")
    expect(sent.at(-1)?.content).toContain("not valid JSON")
  })

  test("arguments of the wrong type go back to the model as an error result", async () => {
    const echo = new EchoTool()
    fake.script({ toolCalls: [{ name: "echo", arguments: { text: 42 } }] }, { content: "Recovered." })
    const result = await withinDeadline(
      "engine call",
      DEADLINE_MS,
      engine(fake, { toolsets: [toolset("t", [echo])] }).call(ASK),
    )
    expect(result.result).toBe("Recovered.")
    expect(echo.calls).toHaveLength(0)
    expect(result.toolCalls?.[0]?.result.error).toContain("Invalid arguments")
  })

  test("a call for an unknown tool is answered with the list of real tools, and the loop goes on", async () => {
    fake.script(
      {
        toolCalls: [
          { name: "rm_rf_slash", arguments: {} },
          { name: "echo", arguments: { text: "hi" } },
        ],
      },
      { content: "Recovered." },
    )
    const echo = new EchoTool()
    const result = await withinDeadline(
      "engine call",
      DEADLINE_MS,
      engine(fake, { toolsets: [toolset("t", [echo])] }).call(ASK),
    )
    expect(result.result).toBe("Recovered.")
    expect(echo.calls).toEqual([{ text: "hi" }])
    const unknown = result.toolCalls?.find((c) => c.toolName === "rm_rf_slash")
    expect(unknown?.result.status).toBe(ToolResultStatus.ERROR)
    expect(unknown?.result.error).toContain("Available tools: echo")
  })

  test("a tool call without an id still pairs with its result", async () => {
    fake.script(
      {
        body: {
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model: "gpt-4o",
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: null,
                tool_calls: [{ type: "function", function: { name: "echo", arguments: '{"text":"x"}' } }],
              },
            },
          ],
        },
      },
      { content: "Recovered." },
    )
    const result = await withinDeadline(
      "engine call",
      DEADLINE_MS,
      engine(fake, { toolsets: [toolset("t", [new EchoTool()])] }).call(ASK),
    )
    expect(result.result).toBe("Recovered.")
    const sent = fake.requests[1]?.body?.messages as Array<{
      role: string
      tool_call_id?: string
      tool_calls?: Array<{ id: string }>
    }>
    const callId = sent.find((m) => m.role === "assistant")?.tool_calls?.[0]?.id
    expect(callId).toBeTruthy()
    expect(sent.find((m) => m.role === "tool")?.tool_call_id).toBe(callId)
  })
})

test("an abort while the provider hangs ends the call at once", async () => {
  fake.script({ hang: true })
  const abort = new AbortController()
  const call = engine(fake, { maxRetries: 0 }).call(ASK, { signal: abort.signal })
  setTimeout(() => abort.abort(), 100)
  const outcome = await withinDeadline("aborted call", 2_000, settle(call))
  expect(outcome.ok).toBe(false)
  if (!outcome.ok) expect((outcome.error as Error).name).toBe("AbortError")
})

test("a body that stalls after the headers times out instead of hanging", async () => {
  // Headers and half a body, then silence with the connection open: the fake provider cannot do
  // this, so a purpose-built server does.
  const encoder = new TextEncoder()
  const stall = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode('{"id":"chatcmpl-1","choices":['))
          },
        }),
        { headers: { "content-type": "application/json" } },
      ),
  })
  try {
    const llm = engine({ url: `http://127.0.0.1:${stall.port}/v1` } as FakeProvider, {
      maxRetries: 0,
      timeoutMs: 500,
    })
    const outcome = await withinDeadline("stalled body", DEADLINE_MS, settle(llm.call(ASK)))
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) expect(outcome.error).toBeInstanceOf(ModelError)
  } finally {
    await stall.stop(true)
  }
})
