import { expect, test } from "bun:test"
import { redactOffLoop } from "../../src/offloop/redact.ts"
import { offLoop } from "../../src/offloop/runner.ts"

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
