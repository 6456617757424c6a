import { afterEach, describe, expect, test } from "bun:test"
import { connect } from "node:net"
import { type Harness, providerRequests, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

type ErrorBody = { detail: string; error_code: number; errors?: Array<{ path: string; message: string }> }

async function expectError(res: Response, status: number, code: number): Promise<ErrorBody> {
  expect(res.status).toBe(status)
  expect(res.headers.get("content-type")).toContain("application/json")
  const body = (await res.json()) as ErrorBody
  expect(body.error_code).toBe(code)
  expect(typeof body.detail).toBe("string")
  expect(body.detail.length).toBeGreaterThan(0)
  const keys = Object.keys(body).sort()
  expect(keys).toEqual(body.errors ? ["detail", "error_code", "errors"] : ["detail", "error_code"])
  return body
}

const fast = { "retry-after-ms": "1" }

describe("CONTRACT §5 statuses and the one error body", () => {
  test("422 / 4220: a body that is not JSON, or not an object", async () => {
    h = await startHarness()
    for (const body of ["{ask: nope", "", '["ask"]', "null"]) {
      const error = await expectError(await h.post(body), 422, 4220)
      expect(error.detail).toMatch(/JSON/)
    }
  })

  const schemaCases: Array<[string, Record<string, unknown>, string]> = [
    ["missing ask", {}, "/ask"],
    ["a mistyped field", { ask: "q", stream: "yes" }, "/stream"],
    ["an image object without url", { ask: "q", images: [{ detail: "low" }] }, "/images/0"],
    [
      "a response_format without json_schema",
      { ask: "q", response_format: { type: "json_schema" } },
      "/response_format",
    ],
    [
      "malformed tool_decisions items",
      { conversation_history: [], tool_decisions: [{ tool_call_id: "x" }] },
      "/tool_decisions/0",
    ],
  ]
  for (const [name, body, path] of schemaCases) {
    test(`422 / 4220 with field errors: ${name}`, async () => {
      h = await startHarness()
      const error = await expectError(await h.post(body), 422, 4220)
      expect(error.errors?.length).toBeGreaterThan(0)
      expect(error.errors?.some((e) => e.path.startsWith(path))).toBe(true)
      for (const e of error.errors ?? []) expect(Object.keys(e).sort()).toEqual(["message", "path"])
    })
  }

  test("a stream request is validated before the stream opens: real statuses, JSON bodies", async () => {
    h = await startHarness()
    await expectError(await h.post({ stream: true }), 422, 4220)
    await expectError(await h.post({ ask: "q", stream: true, model: "other" }), 400, 4000)
    await expectError(
      await h.post({ ask: "q", stream: true, conversation_history: [{ role: "user", content: "" }] }),
      400,
      4000,
    )
  })

  test("413 / 4130: a declared Content-Length over the limit, and a chunked body that grows past it", async () => {
    h = await startHarness({ init: { server: { max_body_bytes: 2048 } } })
    const big = JSON.stringify({ ask: "x".repeat(5000) })
    const error = await expectError(await h.post(big), 413, 4130)
    expect(error.detail).toContain("2048 bytes")

    // No Content-Length: the body arrives in chunks and is cut off while reading.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(1000)))
        controller.enqueue(new TextEncoder().encode('{"ask":"q"}'))
        controller.close()
      },
    })
    const res = await fetch(`${h.url}/api/chat`, {
      method: "POST",
      body: chunks,
      headers: { "content-type": "application/json" },
    })
    await expectError(res, 413, 4130)
    expect(providerRequests(h.fake)).toHaveLength(0)
  })

  test("413 / 4130 with the contract's body for any declared Content-Length, however large; the connection closes", async () => {
    h = await startHarness()
    const port = new URL(h.url).port
    const { promise: closed, resolve } = Promise.withResolvers<string>()
    let text = ""
    const socket = connect(Number(port), "127.0.0.1")
    socket.on("data", (d) => {
      text += String(d)
    })
    socket.on("error", () => {})
    socket.on("close", () => resolve(text))
    socket.write(
      'POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n{"ask":',
    )
    const reply = await Promise.race([closed, Bun.sleep(3000).then(() => `still open: ${text}`)])
    socket.destroy()
    expect(reply).toStartWith("HTTP/1.1 413")
    expect(reply.toLowerCase()).toContain("connection: close")
    const body = JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4)) as ErrorBody
    expect(body.error_code).toBe(4130)
    expect(body.detail).toContain("server.max_body_bytes")
    expect(providerRequests(h.fake)).toHaveLength(0)
  })

  test("429 / 5204: the provider keeps rate-limiting after retries", async () => {
    h = await startHarness()
    h.fake.script(...Array.from({ length: 6 }, () => ({ status: 429, headers: fast })))
    await expectError(await h.post({ ask: "q" }), 429, 5204)
  })

  test("502 / 5020: provider 5xx after retries, and a provider auth failure", async () => {
    h = await startHarness()
    h.fake.script(...Array.from({ length: 6 }, () => ({ status: 503, headers: fast })))
    await expectError(await h.post({ ask: "q" }), 502, 5020)
    h.fake.script({ status: 401 })
    await expectError(await h.post({ ask: "q" }), 502, 5020)
  })

  test("a provider error body that echoes the key reaches neither the 502 nor the SSE error event", async () => {
    const key = "sk-proxy-echo-4f9a7c2e1b8d6a3f"
    const token = "auth-token-5e8c1d9b7a2f"
    const echoing = (request: { headers: Record<string, string> }) => ({
      status: 401,
      body: {
        error: {
          message: `gateway refused: you sent authorization: ${request.headers.authorization}; key=${key} (plain ${key}); token ${token}`,
        },
      },
    })
    h = await startHarness({ init: { apiKey: key, server: { auth_token: token } } })
    const auth = { authorization: `Bearer ${token}` }
    h.fake.script(echoing)
    const error = await expectError(await h.post({ ask: "q" }, auth), 502, 5020)
    expect(error.detail).toContain("gateway refused")
    expect(error.detail).not.toContain(key)
    expect(error.detail).not.toContain(key.slice(3))
    expect(error.detail).not.toContain(token)
    expect(error.detail).toContain("[REDACTED]")

    h.fake.script(echoing)
    const { events, text } = await h.stream({ ask: "q" }, auth)
    const failed = events.find((e) => e.event === "error")
    expect(failed).toBeDefined()
    expect(text).toContain("gateway refused")
    expect(text).not.toContain(key)
    expect(text).not.toContain(token)
  })

  test("500 / 1: anything else (here a model key variable that is not set), without internals", async () => {
    h = await startHarness({
      useModelList: true,
      init: {
        modelList: { broken: { model: "openai/gpt-4o", api_key: "{{ env.NOT_SET_ANYWHERE }}" } },
        model: "broken",
      },
    })
    const error = await expectError(await h.post({ ask: "q" }), 500, 1)
    expect(error.detail).toContain("NOT_SET_ANYWHERE")
  })

  test("404 for a route that does not exist, in the same body", async () => {
    h = await startHarness()
    await expectError(await fetch(`${h.url}/api/nothing`), 404, 4040)
  })
})

describe("auth", () => {
  test("401 / 4010 without or with a wrong token; Bearer and X-API-Key accepted; health routes open", async () => {
    h = await startHarness({ init: { server: { auth_token: "s3cret-token" } } })
    h.fake.script({ content: "ok" }, { content: "ok" })
    const noToken = await h.post({ ask: "q" })
    expect(noToken.headers.get("www-authenticate")).toBe("Bearer")
    await expectError(noToken, 401, 4010)
    await expectError(await h.post({ ask: "q" }, { authorization: "Bearer wrong" }), 401, 4010)
    await expectError(await h.post({ ask: "q" }, { "x-api-key": "s3cret-token-but-longer" }), 401, 4010)
    // Auth comes before parsing: garbage from an anonymous client is a 401, not a 422.
    await expectError(await h.post("not json"), 401, 4010)
    expect((await h.post({ ask: "q" }, { authorization: "Bearer s3cret-token" })).status).toBe(200)
    expect((await h.post({ ask: "q" }, { "x-api-key": "s3cret-token" })).status).toBe(200)
    for (const path of ["/api/model", "/api/info", "/metrics"]) {
      await expectError(await fetch(`${h.url}${path}`), 401, 4010)
      expect(
        (await fetch(`${h.url}${path}`, { headers: { authorization: "Bearer s3cret-token" } })).status,
      ).toBe(200)
    }
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200)
    expect([200, 503]).toContain((await fetch(`${h.url}/readyz`)).status)
  })
})
