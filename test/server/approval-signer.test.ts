import { describe, expect, test } from "bun:test"
import type { ToolCall } from "../../src/llm/types.ts"
import { ApprovalSigner } from "../../src/server/approvals.ts"

const call = (args = '{"service":"web"}', name = "restart", id = "c1"): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: args },
})
const signed = (c: ToolCall, signature: string): ToolCall => ({ ...c, pending_approval: { signature } })

describe("ApprovalSigner", () => {
  test("a signature verifies for exactly the call it was made for", () => {
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60 })
    const sig = signer.sign(call())
    expect(sig).toMatch(/^v1\.\d+\.[A-Za-z0-9_-]{43}$/)
    expect(signer.verify(signed(call(), sig))).toBeUndefined()
    // Arguments are compared byte for byte: even whitespace is a different call.
    expect(signer.verify(signed(call('{"service": "web"}'), sig))).toContain("does not match")
    expect(signer.verify(signed(call(undefined, "note"), sig))).toContain("does not match")
    expect(signer.verify(signed(call(undefined, undefined, "c2"), sig))).toContain("does not match")
  })

  test("the issue time is covered by the MAC, and expiry is enforced", () => {
    let now = 1_700_000_000_000
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60, now: () => now })
    const sig = signer.sign(call())
    const [, issued, mac] = sig.split(".")
    // Moving the issue time forward to dodge expiry breaks the MAC.
    expect(signer.verify(signed(call(), `v1.${Number(issued) + 1000}.${mac}`))).toContain("does not match")
    now += 60_000
    expect(signer.verify(signed(call(), sig))).toBeUndefined()
    now += 1_000
    expect(signer.verify(signed(call(), sig))).toContain("expired")
  })

  test("a signature from the future (beyond clock skew) is refused", () => {
    let now = 1_700_000_000_000
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60, now: () => now })
    const sig = signer.sign(call())
    now -= 3_600_000
    expect(signer.verify(signed(call(), sig))).toContain("future")
  })

  test("different keys do not accept each other's signatures; without a secret, one random key per process", () => {
    const a = new ApprovalSigner({ secret: "a", ttlSeconds: 60 })
    const b = new ApprovalSigner({ secret: "b", ttlSeconds: 60 })
    expect(b.verify(signed(call(), a.sign(call())))).toContain("does not match")
    const p1 = new ApprovalSigner({ ttlSeconds: 60 })
    const p2 = new ApprovalSigner({ ttlSeconds: 60 })
    expect(p2.verify(signed(call(), p1.sign(call())))).toBeUndefined()
    expect(a.verify(signed(call(), p1.sign(call())))).toContain("does not match")
  })

  test("missing and malformed signatures", () => {
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60 })
    expect(signer.verify(call())).toContain("no signature")
    for (const bad of [
      "",
      "v1",
      "v2.1.abc",
      `v1.x.${"A".repeat(43)}`,
      `v1.1.${"A".repeat(42)}`,
      "v1.1.a+b/",
    ]) {
      expect(signer.verify(signed(call(), bad))).toContain("malformed")
    }
  })
})
