/**
 * The chat request schema is the one type check of `POST /api/chat`, and it runs before any
 * semantic check: a mistyped field anywhere in the body (nested ones too) is a 422 naming the
 * field's JSON path and the type it should have, never a 400 about something else, and nothing is
 * coerced (a string is never read as a list of its characters).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { type Harness, providerRequests, startHarness } from "./harness.ts"

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h.stop()
})

type ErrorBody = { detail: string; error_code: number; errors?: Array<{ path: string; message: string }> }

const sys = { role: "system", content: "" }
const call = { id: "c1", type: "function", function: { name: "note", arguments: '{"text":"a"}' } }

async function schemaError(body: unknown): Promise<ErrorBody> {
  const res = await h.post(body)
  const error = (await res.json()) as ErrorBody
  expect({ status: res.status, error_code: error.error_code }).toEqual({ status: 422, error_code: 4220 })
  return error
}

describe("422 with the path and the expected type", () => {
  test("a string conversation_history (was a 400 about role undefined: the string was split into characters)", async () => {
    for (const history of ["abc", JSON.stringify([sys])]) {
      const error = await schemaError({ ask: "q", conversation_history: history })
      expect(error.errors).toEqual([
        { path: "/conversation_history", message: "Expected array, found string" },
      ])
      expect(error.detail).toContain("/conversation_history")
    }
  })

  test("a string images (was read as one image per character)", async () => {
    const error = await schemaError({ ask: "q", images: "data:image/png;base64,AAAA" })
    expect(error.errors).toEqual([{ path: "/images", message: "Expected array, found string" }])
  })

  test("a list where an object is expected (behavior_controls [] used to reach the model)", async () => {
    const error = await schemaError({ ask: "q", behavior_controls: [] })
    expect(error.errors).toEqual([{ path: "/behavior_controls", message: "Expected object, found array" }])
  })

  const nested: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ["a message without role", { conversation_history: [{}] }, "/conversation_history/0/role", /string/],
    [
      "a message's content of the wrong type",
      { conversation_history: [sys, { role: "user", content: 5 }] },
      "/conversation_history/1/content",
      /Expected string, null or array, found number/,
    ],
    [
      "a content part's text",
      { conversation_history: [sys, { role: "user", content: [{ type: "text", text: true }] }] },
      "/conversation_history/1/content/0/text",
      /Expected string, found boolean/,
    ],
    [
      "a content part's image url",
      {
        conversation_history: [
          sys,
          { role: "user", content: [{ type: "image_url", image_url: { url: [] } }] },
        ],
      },
      "/conversation_history/1/content/0/image_url/url",
      /Expected string, found array/,
    ],
    [
      "a tool call without arguments",
      {
        conversation_history: [
          sys,
          { role: "assistant", content: null, tool_calls: [{ id: "c1", function: { name: "note" } }] },
        ],
      },
      "/conversation_history/1/tool_calls/0/function/arguments",
      /missing: expected string/i,
    ],
    [
      "tool_calls as an object",
      { conversation_history: [sys, { role: "assistant", content: null, tool_calls: call }] },
      "/conversation_history/1/tool_calls",
      /Expected array or null, found object/,
    ],
    [
      "a pending approval's signature",
      {
        conversation_history: [
          sys,
          { role: "assistant", content: null, tool_calls: [{ ...call, pending_approval: { signature: 1 } }] },
        ],
      },
      "/conversation_history/1/tool_calls/0/pending_approval/signature",
      /Expected string, found number/,
    ],
    [
      "a tool message's tool_call_id",
      { conversation_history: [sys, { role: "tool", tool_call_id: 7, content: "x" }] },
      "/conversation_history/1/tool_call_id",
      /Expected string or null, found number/,
    ],
    ["an image object's url", { images: [{ url: 5 }] }, "/images/0/url", /Expected string, found number/],
    [
      "an image's detail",
      { images: [{ url: "https://x/a.png", detail: "max" }] },
      "/images/0/detail",
      /"low"/,
    ],
    ["an image of the wrong type", { images: [5] }, "/images/0", /Expected string or object, found number/],
    [
      "a decision's approved",
      { conversation_history: [sys], tool_decisions: [{ tool_call_id: "c1", approved: "yes" }] },
      "/tool_decisions/0/approved",
      /Expected boolean, found string/,
    ],
    [
      "a decision's feedback",
      {
        conversation_history: [sys],
        tool_decisions: [{ tool_call_id: "c1", approved: false, feedback: {} }],
      },
      "/tool_decisions/0/feedback",
      /Expected string or null, found object/,
    ],
    ["stream_text", { stream_text: "yes" }, "/stream_text", /Expected boolean, found string/],
    [
      "json_schema.schema as a list",
      { response_format: { type: "json_schema", json_schema: { schema: [] } } },
      "/response_format/json_schema/schema",
      /Expected object, found array/,
    ],
  ]
  for (const [name, extra, path, message] of nested) {
    test(`nested: ${name}`, async () => {
      const error = await schemaError({ ask: "q", ...extra })
      expect(error.errors?.[0]?.path).toBe(path)
      expect(error.errors?.[0]?.message).toMatch(message)
      expect(error.detail).toContain(path)
    })
  }

  test("the type check comes before every semantic check", async () => {
    // An unknown model, a history without system and a forged decision are all 400s; the mistyped
    // field is what the caller hears about first.
    const error = await schemaError({
      ask: "q",
      model: "nope",
      conversation_history: [{ role: "user", content: "hi" }],
      tool_decisions: [{ tool_call_id: "zz", approved: true }],
      stream: "true",
    })
    expect(error.errors).toEqual([{ path: "/stream", message: "Expected boolean, found string" }])
  })

  test("every mistyped field is listed, and a huge value is not echoed back", async () => {
    const error = await schemaError({
      ask: 1,
      model: "",
      stream: 2,
      images: [{ url: 3, detail: "x".repeat(100_000) }],
    })
    expect(error.errors?.map((e) => e.path)).toEqual([
      "/ask",
      "/model",
      "/images/0/url",
      "/images/0/detail",
      "/stream",
    ])
    expect(JSON.stringify(error).length).toBeLessThan(2000)
  })

  test("a huge key in the path is not echoed back whole either", async () => {
    const key = "k".repeat(100_000)
    const error = await schemaError({ ask: "q", behavior_controls: { [key]: "yes please" } })
    expect(error.errors).toHaveLength(1)
    expect(error.errors?.[0]?.path).toStartWith("/behavior_controls/kkkk")
    expect(error.errors?.[0]?.path).toEndWith("…")
    expect(error.errors?.[0]?.message).toBe("Expected boolean, found string")
    expect(JSON.stringify(error).length).toBeLessThan(2000)
  })

  // R2: a long history is checked a slice at a time, with the same paths and the same 422.
  test("a long conversation_history is checked item by item: the bad item and the rest are named", async () => {
    const history: unknown[] = [sys]
    for (let i = 1; i < 3000; i++) history.push({ role: i % 2 ? "user" : "assistant", content: `m${i}` })
    history[2500] = { role: 5, content: "x" }
    history[2700] = { role: "tool", tool_call_id: 7, content: "x" }
    const error = await schemaError({ ask: 1, conversation_history: history })
    expect(error.errors).toEqual([
      { path: "/ask", message: "Expected string, found number" },
      { path: "/conversation_history/2500/role", message: "Expected string, found number" },
      { path: "/conversation_history/2700/tool_call_id", message: "Expected string or null, found number" },
    ])
    expect(error.detail).toContain("/ask")
  })

  test("nothing reached the provider", () => {
    expect(providerRequests(h.fake)).toHaveLength(0)
  })
})

describe("well-typed bodies pass", () => {
  test("stream_text and nullable nested fields are accepted", async () => {
    h.fake.script({ content: "ok" })
    const res = await h.post({
      ask: "q",
      stream_text: false,
      conversation_history: [
        sys,
        { role: "user", content: "hi", name: null, tool_calls: null, tool_call_id: null },
        { role: "assistant", content: "hello" },
      ],
      images: [{ url: "https://example.com/a.png", detail: null, format: null }],
    })
    expect(res.status).toBe(200)
  })
})
