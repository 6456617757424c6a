import { expect, test } from "bun:test"
import { parseResponse } from "../../src/offloop/jobs.ts"
import { redactOffLoop } from "../../src/offloop/redact.ts"
import { offLoop } from "../../src/offloop/runner.ts"

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))

// R12: only a JSON-RPC response survives a long line's parse.
test("parse-response keeps responses and drops notifications, requests and junk", () => {
  expect(parseResponse(bytes({ jsonrpc: "2.0", id: 3, result: { content: [] } }))).toEqual({
    jsonrpc: "2.0",
    id: 3,
    result: { content: [] },
  })
  expect(parseResponse(bytes({ jsonrpc: "2.0", id: "a", error: { code: 1, message: "x" } }))?.id).toBe("a")
  expect(
    parseResponse(bytes({ jsonrpc: "2.0", method: "notifications/message", params: {} })),
  ).toBeUndefined()
  expect(parseResponse(bytes({ jsonrpc: "2.0", id: 1, method: "ping" }))).toBeUndefined()
  expect(parseResponse(new TextEncoder().encode("not json"))).toBeUndefined()
})

// R11: a large output is redacted in the worker, and still redacted.
test("a large output is redacted off the event loop, the same as inline", async () => {
  const secret = "kind: Secret\ndata:\n  password: aHVudGVyMg==\n"
  const text = `${"log line\n".repeat(40_000)}${secret}`
  expect(text.length).toBeGreaterThan(128 * 1024)
  const out = await redactOffLoop(text, AbortSignal.timeout(60_000))
  expect(out).not.toContain("aHVudGVyMg==")
  expect(out).toContain("password: [REDACTED]")
})

// R15: an answer is checked in the worker; a backtracking pattern ends at the deadline, not later.
test("check-answer refuses what does not match, and a backtracking pattern stops at the deadline", async () => {
  const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }
  const signal = AbortSignal.timeout(60_000)
  expect(await offLoop({ kind: "check-answer", schema, answer: '{"n": 1}' }, 30_000, signal)).toBeUndefined()
  expect(await offLoop({ kind: "check-answer", schema, answer: '{"n": "x"}' }, 30_000, signal)).toContain(
    "/n",
  )
  const hostile = { type: "object", properties: { w: { type: "string", pattern: "^(\\w+\\s?)*$" } } }
  const started = performance.now()
  const slow = offLoop(
    { kind: "check-answer", schema: hostile, answer: `{"w": "${"a".repeat(60)}!"}` },
    500,
    signal,
  )
  await expect(slow).rejects.toThrow("did not finish")
  expect(performance.now() - started).toBeLessThan(5_000)
}, 60_000)
