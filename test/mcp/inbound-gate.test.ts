import { expect, test } from "bun:test"
import type { JSONRPCMessage } from "@modelcontextprotocol/client"
import { dropLongEvents } from "../../src/toolset/mcp/http-limit.ts"
import { INLINE_LINE_BYTES, InboundGate } from "../../src/toolset/mcp/inbound-gate.ts"
import { MessageLines, parseMessage, responseIn } from "../../src/toolset/mcp/stdio-lines.ts"

const line = (message: unknown) => new TextEncoder().encode(`${JSON.stringify(message)}\n`)
const notification = (data: string): JSONRPCMessage =>
  ({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data } }) as JSONRPCMessage

// R12: a long line is not decoded on the event loop; short ones are parsed as before.
test("a line past the inline bound comes back as bytes, a short one as a message", () => {
  const lines = new MessageLines(32 * 1024 * 1024, INLINE_LINE_BYTES)
  const out = lines.push(
    new Uint8Array([...line(notification("x".repeat(INLINE_LINE_BYTES))), ...line(notification("small"))]),
  )
  expect(out.map((l) => l.kind)).toEqual(["long", "message"])
})

test("long lines are awaited only while a request of ours waits; a response ends the wait", () => {
  const gate = new InboundGate()
  expect(gate.awaiting).toBe(false)
  gate.sent({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x" } } as JSONRPCMessage)
  expect(gate.awaiting).toBe(true)
  expect(gate.admit({ jsonrpc: "2.0", id: 7, result: {} } as JSONRPCMessage)).toBe(true)
  expect(gate.awaiting).toBe(false)
  gate.sent({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "x" } } as JSONRPCMessage)
  gate.sent({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8 } } as JSONRPCMessage)
  expect(gate.awaiting).toBe(false)
})

test("notifications past the rate are dropped; responses never are", () => {
  const gate = new InboundGate()
  let admitted = 0
  for (let i = 0; i < 1000; i++) if (gate.admit(notification("n"))) admitted++
  expect(admitted).toBeGreaterThanOrEqual(200)
  expect(admitted).toBeLessThan(260)
  expect(gate.dropped).toBe(1000 - admitted)
  expect(gate.admit({ jsonrpc: "2.0", id: 1, result: {} } as JSONRPCMessage)).toBe(true)
})

test("an unsolicited SSE stream loses its events past 64 KiB and keeps the rest, across chunks", async () => {
  const event = (data: string) => `event: message\r\ndata: ${data}\r\n\r\n`
  const text = `${event("one")}${event("x".repeat(INLINE_LINE_BYTES + 10))}${event("two")}`
  const bytes = new TextEncoder().encode(text)
  const chunks: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += 7001) chunks.push(bytes.subarray(i, i + 7001))
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c)
      controller.close()
    },
  })
  const out = await dropLongEvents(new Response(body)).text()
  expect(out).toBe(`${event("one")}${event("two")}`)
})

test("a long line nobody waits for is dropped as it arrives, and the next line still parses", () => {
  const lines = new MessageLines(32 * 1024 * 1024, INLINE_LINE_BYTES, () => false)
  const long = line(notification("x".repeat(4 * INLINE_LINE_BYTES)))
  const out = [
    ...lines.push(long.subarray(0, 100_000)),
    ...lines.push(long.subarray(100_000)),
    ...lines.push(line(notification("small"))),
  ]
  expect(out.map((l) => l.kind)).toEqual(["message"])
  expect(lines.dropped).toBe(1)
})

// R12: the stdio worker checks the JSON-RPC envelope itself (it does not load the SDK).
test("the envelope check keeps the four kinds of message and skips the rest", () => {
  const parsed = (value: unknown) => parseMessage(JSON.stringify(value))
  expect(parsed({ jsonrpc: "2.0", id: 1, method: "ping" })).toBeDefined()
  expect(parsed({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info" } })).toBeDefined()
  expect(parsed({ jsonrpc: "2.0", id: "a", result: {} })).toBeDefined()
  expect(parsed({ jsonrpc: "2.0", id: 2, error: { code: -32600, message: "bad" } })).toBeDefined()
  for (const bad of [
    { jsonrpc: "1.0", id: 1, result: {} },
    { jsonrpc: "2.0", id: 1.5, result: {} },
    { jsonrpc: "2.0", id: null, result: {} },
    { jsonrpc: "2.0", id: 1, result: [] },
    { jsonrpc: "2.0", id: 1, error: { code: "x", message: "bad" } },
    { jsonrpc: "2.0", method: 7 },
    { jsonrpc: "2.0", method: "x", params: "p" },
    { jsonrpc: "2.0", id: 1 },
    [1, 2],
  ])
    expect(parsed(bad)).toBeUndefined()
  expect(parseMessage("log line, not JSON")).toBeUndefined()
})

test("a long line is kept only as a response", () => {
  const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))
  expect(responseIn(bytes({ jsonrpc: "2.0", id: 3, result: { content: [] } }))).toEqual({
    jsonrpc: "2.0",
    id: 3,
    result: { content: [] },
  } as JSONRPCMessage)
  expect(responseIn(bytes({ jsonrpc: "2.0", id: "a", error: { code: 1, message: "x" } }))).toBeDefined()
  expect(responseIn(bytes(notification("n")))).toBeUndefined()
  expect(responseIn(bytes({ jsonrpc: "2.0", id: 1, method: "ping" }))).toBeUndefined()
  expect(responseIn(new TextEncoder().encode("not json"))).toBeUndefined()
})
