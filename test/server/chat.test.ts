import { afterEach, describe, expect, test } from "bun:test"
import { join } from "node:path"
import type { ChatMessage } from "../../src/llm/types.ts"
import { liveInGroup } from "../support/live-processes.ts"
import { waitFor, waitForPid } from "../support/wait.ts"
import { eventOf, type Harness, providerMessages, providerRequests, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

type Body = Record<string, unknown> & { conversation_history: ChatMessage[] }
type ErrorBody = { detail: string; error_code: number; errors?: Array<{ path: string; message: string }> }

async function json<T = Body>(res: Response): Promise<T> {
  return (await res.json()) as T
}

const ANSWER_SCHEMA = {
  type: "object",
  properties: {
    cause: { type: "string" },
    severity: { type: "string", enum: ["low", "high"] },
    pods: { type: "array", items: { type: "string" } },
  },
  required: ["cause", "severity", "pods"],
  additionalProperties: false,
}
const responseFormat = (strict = false) => ({
  type: "json_schema",
  json_schema: { name: "diagnosis", strict, schema: ANSWER_SCHEMA },
})

describe("non-stream chat", () => {
  test("the response body: analysis, full history, tool_calls, follow_up_actions, metadata", async () => {
    h = await startHarness()
    h.fake.script(
      { toolCalls: [{ id: "c1", name: "note", arguments: { text: "disk" } }], usage: { prompt_tokens: 50 } },
      { content: "The disk is full.", usage: { prompt_tokens: 90, completion_tokens: 7 } },
    )
    const res = await h.post({ ask: "why is it slow?" })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("application/json")
    const body = await json(res)
    expect(Object.keys(body).sort()).toEqual([
      "analysis",
      "conversation_history",
      "follow_up_actions",
      "metadata",
      "tool_calls",
    ])
    expect(body.analysis).toBe("The disk is full.")
    const history = body.conversation_history
    expect(history.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"])
    expect(String(history[1]?.content)).toContain("why is it slow?")
    expect(history.at(-1)).toEqual({ role: "assistant", content: "The disk is full." })
    expect(body.tool_calls).toEqual([
      {
        tool_call_id: "c1",
        tool_name: "note",
        description: expect.stringContaining("disk"),
        result: {
          status: "success",
          data: expect.stringContaining("noted disk"),
          error: null,
          params: { text: "disk" },
        },
      },
    ])
    expect(body.follow_up_actions).toEqual(expect.arrayContaining([expect.objectContaining({ id: "logs" })]))
    expect(body.metadata).toMatchObject({
      usage: { prompt_tokens: 90, completion_tokens: 7, total_tokens: 97 },
      costs: { num_llm_calls: 2, prompt_tokens: 140 },
    })
  })

  test("a follow-up keeps the client's system message, appends the user message, and gets no follow-up actions", async () => {
    h = await startHarness()
    h.fake.script({ content: "first" }, { content: "second" })
    const first = await json(
      await h.post({ ask: "one", additional_system_prompt: "Always answer in French." }),
    )
    expect(String(first.conversation_history[0]?.content)).toContain("Always answer in French.")
    expect(String(providerMessages(h.fake, 0)[0]?.content)).toContain("Always answer in French.")

    const history = structuredClone(first.conversation_history)
    history[0] = { role: "system", content: "Client-kept system prompt." }
    const second = await json(await h.post({ ask: "two", conversation_history: history }))
    const sent = providerMessages(h.fake, 1)
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"])
    expect(sent[0]?.content).toBe("Client-kept system prompt.")
    expect(String(sent[3]?.content)).toContain("two")
    expect(second.conversation_history).toHaveLength(5)
    expect(second.follow_up_actions).toEqual([])
  })

  test("a client that hangs up on a non-stream request stops the run and kills the tool", async () => {
    h = await startHarness()
    h.fake.script({ toolCalls: [{ id: "n1", name: "nap", arguments: {} }] }, { content: "never asked" })
    const abort = new AbortController()
    const request = h.post({ ask: "sleep" }, {}, abort.signal).catch(() => undefined)
    const pidFile = join(h.dir, "nap.pid")
    const pgid = await waitForPid(pidFile)
    expect(liveInGroup(pgid).length).toBeGreaterThan(0)
    abort.abort()
    await request
    await waitFor(() => liveInGroup(pgid).length === 0, { what: "the tool's group to end" })
    expect(liveInGroup(pgid)).toEqual([])
    await waitFor(() => h?.runs.size === 0, { what: "the run to end" })
    expect(h.runs.size).toBe(0)
    expect(h.fake.pending()).toBe(1)
    // The access record is written after the hang-up is noticed; wait for it, not for a fixed time.
    const hungUp = () => h?.metrics.requests.get({ method: "POST", route: "/api/chat", status: "499" })
    await waitFor(() => hungUp() === 1, { what: "the 499 to be counted" })
    expect(hungUp()).toBe(1)
  })

  test("optional fields sent as null are treated as absent", async () => {
    h = await startHarness()
    h.fake.script({ content: "ok" })
    const res = await h.post({
      ask: "q",
      model: null,
      conversation_history: null,
      response_format: null,
      images: null,
      stream: null,
      enable_tool_approval: null,
      additional_system_prompt: null,
      behavior_controls: null,
      tool_decisions: null,
    })
    expect(res.status).toBe(200)
    expect((await json(res)).analysis).toBe("ok")
  })

  test("configured follow-up actions replace the built-in ones on a first turn", async () => {
    const action = { id: "x", action_label: "X", pre_action_notification_text: "Doing X", prompt: "Do X" }
    h = await startHarness({ init: { followUpActions: [action] } })
    h.fake.script({ content: "ok" })
    expect((await json(await h.post({ ask: "q" }))).follow_up_actions).toEqual([action])
  })
})

describe("structured output", () => {
  test("a valid answer: response_format reaches the provider with strict forced to true", async () => {
    h = await startHarness()
    const answer = JSON.stringify({ cause: "OOM", severity: "high", pods: ["api-1"] })
    h.fake.script({ content: answer })
    const body = await json(await h.post({ ask: "diagnose", response_format: responseFormat(false) }))
    expect(body.analysis).toBe(answer)
    expect(providerRequests(h.fake)[0]?.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "diagnosis", strict: true, schema: ANSWER_SCHEMA },
    })
  })

  test("an invalid answer is sent back once with the reason, and the corrected answer is returned", async () => {
    h = await startHarness()
    const good = JSON.stringify({ cause: "OOM", severity: "low", pods: [] })
    h.fake.script(
      { content: JSON.stringify({ cause: "OOM", severity: "medium", pods: [] }) },
      { content: good },
    )
    const body = await json(await h.post({ ask: "diagnose", response_format: responseFormat() }))
    expect(body.analysis).toBe(good)
    const retry = providerMessages(h.fake, 1).at(-1)
    expect(retry?.role).toBe("user")
    expect(String(retry?.content)).toContain(
      '/severity: Instance does not match any of ["low","high"]. Reply again',
    )
  })

  test("invalid twice: a clear error (502 non-stream, error event in a stream)", async () => {
    h = await startHarness()
    h.fake.script({ content: "not json" }, { content: '{"cause": 1}' })
    const res = await h.post({ ask: "diagnose", response_format: responseFormat() })
    expect(res.status).toBe(502)
    const error = await json<ErrorBody>(res)
    expect(error.error_code).toBe(5020)
    expect(error.detail).toContain("does not match response_format")

    h.fake.script({ content: "not json" }, { content: "still not json" })
    const { events } = await h.stream({ ask: "diagnose", response_format: responseFormat() })
    expect(eventOf(events, "error").description).toContain("does not match response_format")
  })

  test("a schema that is not usable is a 400 before any provider call", async () => {
    h = await startHarness()
    for (const schema of [
      { type: "strng" },
      { type: "object", oneOf: [{ type: "string" }] },
      { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
    ]) {
      const res = await h.post({
        ask: "x",
        response_format: { type: "json_schema", json_schema: { name: "n", schema } },
      })
      expect(res.status).toBe(400)
      expect((await json<ErrorBody>(res)).detail).toContain("not a usable JSON schema")
    }
    expect(providerRequests(h.fake)).toHaveLength(0)
  })
})

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

describe("images", () => {
  test("a URL, a data URI and an image object all reach the provider as image_url parts", async () => {
    h = await startHarness()
    h.fake.script({ content: "I see a pixel." })
    const res = await h.post({
      ask: "what is this?",
      images: [
        "https://example.com/graph.png",
        `data:image/png;base64,${PNG}`,
        { url: "https://example.com/b.jpg", detail: "low", format: "image/jpeg" },
      ],
    })
    expect(res.status).toBe(200)
    const user = providerMessages(h.fake, 0).find((m) => m.role === "user")
    const parts = user?.content as Array<Record<string, unknown>>
    expect(parts[0]).toMatchObject({ type: "text" })
    expect(String(parts[0]?.text)).toContain("what is this?")
    expect(parts.slice(1)).toEqual([
      { type: "image_url", image_url: { url: "https://example.com/graph.png" } },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "image_url", image_url: { url: "https://example.com/b.jpg", detail: "low" } },
    ])
    // The history keeps the image object as sent (format included) for the next turn.
    const history = (await json(res)).conversation_history
    expect(JSON.stringify(history[1])).toContain('"format":"image/jpeg"')
  })

  test("refusals: a model without vision, malformed data URIs, other schemes, too many, too large", async () => {
    h = await startHarness({ useModelList: true, init: { limits: { max_images: 2, max_image_bytes: 100 } } })
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ model: "blind", images: ["https://example.com/a.png"] }, /blind does not accept images/],
      [{ images: ["data:image/png;base64,not base64!"] }, /not valid base64/],
      [{ images: [`data:;base64,${PNG}`] }, /without a MIME type/],
      [{ images: [`data:text/plain;base64,${PNG}`] }, /not an image type/],
      [{ images: ["data:image/png,rawbytes"] }, /not base64-encoded/],
      [{ images: ["file:///etc/passwd"] }, /only http\(s\) URLs and data URIs/],
      [{ images: ["a", "b", "c"] }, /Too many images: 3; at most 2/],
      [{ images: [`data:image/png;base64,${PNG}`, `data:image/png;base64,${PNG}`] }, /at most 100 bytes/],
    ]
    for (const [extra, detail] of cases) {
      const res = await h.post({ ask: "look", ...extra })
      expect(res.status).toBe(400)
      const body = await json<ErrorBody>(res)
      expect(body.error_code).toBe(4000)
      expect(body.detail).toMatch(detail)
    }
    expect(providerRequests(h.fake)).toHaveLength(0)
  })
})

describe("prompt controls", () => {
  test("ENABLED_PROMPTS=none: no system message reaches the provider, the history still starts with one", async () => {
    h = await startHarness({ env: { ENABLED_PROMPTS: "none" } })
    h.fake.script({ content: "ok" })
    const body = await json(await h.post({ ask: "plain question", behavior_controls: { intro: true } }))
    const sent = providerMessages(h.fake, 0)
    expect(sent.map((m) => m.role)).toEqual(["user"])
    // No user section either: the question goes as it is.
    expect(sent[0]?.content).toBe("plain question")
    expect(body.conversation_history[0]).toEqual({ role: "system", content: "" })
  })

  test("behavior_controls switch sections; an unknown key is a 400 listing the valid ones", async () => {
    h = await startHarness()
    h.fake.script({ content: "ok" }, { content: "ok" })
    await h.post({ ask: "q" })
    await h.post({ ask: "q", behavior_controls: { intro: false, ai_safety: true } })
    const withDefaults = String(providerMessages(h.fake, 0)[0]?.content)
    const switched = String(providerMessages(h.fake, 1)[0]?.content)
    expect(withDefaults).toContain("You are dupin")
    expect(switched).not.toContain("You are dupin")
    expect(withDefaults).not.toContain("Never help with actions that would damage")
    expect(switched).toContain("Never help with actions that would damage")

    const res = await h.post({ ask: "q", behavior_controls: { intro: false, vibes: true } })
    expect(res.status).toBe(400)
    const detail = (await json<ErrorBody>(res)).detail
    expect(detail).toContain("vibes")
    expect(detail).toContain("todowrite_instructions")
    expect(detail).toContain("time_runbooks")
  })

  test("a huge caller value is not echoed back whole in the refusal", async () => {
    h = await startHarness()
    const key = "k".repeat(1_000_000)
    for (const body of [
      { ask: "q", behavior_controls: { [key]: true } },
      {
        conversation_history: [{ role: "system", content: "" }],
        tool_decisions: [{ tool_call_id: key, approved: true }],
      },
      {
        ask: "q",
        conversation_history: [
          { role: "system", content: "" },
          { role: "tool", tool_call_id: key, content: "" },
        ],
      },
    ]) {
      const res = await h.post(body)
      expect(res.status).toBe(400)
      expect((await json<ErrorBody>(res)).detail.length).toBeLessThan(1000)
    }
  })

  test("ENABLED_PROMPTS restricts: the API cannot re-enable a section it excludes", async () => {
    h = await startHarness({ env: { ENABLED_PROMPTS: "style_guide" } })
    h.fake.script({ content: "ok" })
    await h.post({ ask: "q", behavior_controls: { intro: true } })
    const system = String(providerMessages(h.fake, 0)[0]?.content)
    expect(system).not.toContain("You are dupin")
    expect(system).toContain("How to answer")
  })
})

describe("models", () => {
  test("with a modelList, only its keys are accepted; GET /api/model lists them", async () => {
    h = await startHarness({ useModelList: true })
    h.fake.script({ content: "ok" })
    expect((await h.post({ ask: "q", model: "fast" })).status).toBe(200)
    for (const model of ["openai/gpt-4o", "gpt-5"]) {
      const res = await h.post({ ask: "q", model })
      expect(res.status).toBe(400)
      const body = await json<ErrorBody>(res)
      expect(body.error_code).toBe(4000)
      expect(body.detail).toContain(`"${model}"`)
      expect(body.detail).toContain("fast, blind")
    }
    expect(await (await fetch(`${h.url}/api/model`)).json()).toMatchObject({ model_name: ["fast", "blind"] })
  })

  test("without a modelList, the single configured model", async () => {
    h = await startHarness()
    expect(await (await fetch(`${h.url}/api/model`)).json()).toMatchObject({ model_name: ["openai/gpt-4o"] })
  })
})

describe("history validation (400)", () => {
  const call = { id: "c1", type: "function", function: { name: "note", arguments: '{"text":"a"}' } }
  const cases: Array<[string, unknown[], RegExp]> = [
    [
      "first message not system",
      [{ role: "user", content: "hi" }],
      /must start with a message whose role is system/,
    ],
    [
      "unknown role",
      [
        { role: "system", content: "" },
        { role: "wizard", content: "x" },
      ],
      /valid roles are/,
    ],
    [
      "system content not a string",
      [{ role: "system", content: [{ type: "text", text: "x" }] }],
      /content must be a string/,
    ],
    [
      "a tool result without a call",
      [
        { role: "system", content: "" },
        { role: "tool", tool_call_id: "nope", content: "x" },
      ],
      /not an unanswered tool call/,
    ],
    [
      "a call never answered",
      [
        { role: "system", content: "" },
        { role: "user", content: "q" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "user", content: "next" },
      ],
      /c1 .*has no tool result/,
    ],
    [
      "an assistant with array content",
      [
        { role: "system", content: "" },
        { role: "assistant", content: [{ type: "text", text: "x" }] },
      ],
      /assistant message's content must be a string or null/,
    ],
  ]
  for (const [name, history, detail] of cases) {
    test(name, async () => {
      h = await startHarness()
      const res = await h.post({ ask: "q", conversation_history: history })
      expect(res.status).toBe(400)
      const body = await json<ErrorBody>(res)
      expect(body.error_code).toBe(4000)
      expect(body.detail).toMatch(detail)
    })
  }

  test("a well-paired history is accepted and unknown fields are not passed on", async () => {
    h = await startHarness()
    h.fake.script({ content: "ok" })
    const res = await h.post({
      ask: "and now?",
      conversation_history: [
        { role: "system", content: "sys" },
        { role: "user", content: "q" },
        { role: "assistant", content: null, tool_calls: [call], provider_secret_field: 1 },
        { role: "tool", tool_call_id: "c1", content: "a" },
        { role: "assistant", content: "answer", reasoning: "hidden" },
      ],
    })
    expect(res.status).toBe(200)
    const sent = JSON.stringify(providerMessages(h.fake, 0))
    expect(sent).not.toContain("provider_secret_field")
    expect(sent).not.toContain("hidden")
  })
})
