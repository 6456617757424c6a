import { describe, expect, test } from "bun:test"
import { abortableSleep } from "../../src/abort.ts"
import { AbortError } from "../../src/errors.ts"
import {
  backoffMs,
  isRetryableStatus,
  MAX_BACKOFF_MS,
  MAX_RETRY_AFTER_MS,
  retryAfterMs,
} from "../../src/llm/retry.ts"

describe("retry timing", () => {
  test("retryable statuses", () => {
    expect([408, 409, 429, 500, 502, 503, 529].every(isRetryableStatus)).toBe(true)
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false)
  })

  test("retry-after in seconds, milliseconds or as an HTTP date, capped", () => {
    const now = Date.parse("2025-01-01T00:00:00Z")
    expect(retryAfterMs(new Headers({ "retry-after": "0" }), now)).toBe(0)
    expect(retryAfterMs(new Headers({ "retry-after": "2.5" }), now)).toBe(2500)
    expect(retryAfterMs(new Headers({ "retry-after-ms": "120", "retry-after": "9" }), now)).toBe(120)
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:07 GMT" }), now)).toBe(7000)
    expect(retryAfterMs(new Headers({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }), now)).toBe(0)
    expect(retryAfterMs(new Headers({ "retry-after": "86400" }), now)).toBe(MAX_RETRY_AFTER_MS)
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined()
    expect(retryAfterMs(new Headers(), now)).toBeUndefined()
  })

  test("backoff doubles, is jittered down by at most 25%, and is capped", () => {
    expect(backoffMs(0, 500, () => 0)).toBe(500)
    expect(backoffMs(2, 500, () => 0)).toBe(2000)
    expect(backoffMs(2, 500, () => 1)).toBe(1500)
    expect(backoffMs(20, 500, () => 0)).toBe(MAX_BACKOFF_MS)
  })

  test("the sleep ends early with AbortError when the signal fires", async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 20)
    const started = Date.now()
    expect(await abortableSleep(10_000, controller.signal).catch((e: unknown) => e)).toBeInstanceOf(
      AbortError,
    )
    expect(Date.now() - started).toBeLessThan(1000)
    expect(await abortableSleep(1, controller.signal).catch((e: unknown) => e)).toBeInstanceOf(AbortError)
    await abortableSleep(1) // no signal: just waits
  })
})
