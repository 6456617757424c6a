import { describe, expect, test } from "bun:test"
import type { ToolCall } from "../../src/llm/types.ts"
import { ApprovalSigner } from "../../src/server/approvals.ts"
import { SpentApprovals } from "../../src/server/spent-approvals.ts"

const call = (args = '{"service":"web"}', name = "restart", id = "c1"): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: args },
})
const signed = (c: ToolCall, signature: string): ToolCall => ({ ...c, pending_approval: { signature } })
const CONV = "conversation-a"

describe("ApprovalSigner", () => {
  test("a signature verifies for exactly the call it was made for", () => {
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60 })
    const sig = signer.sign(call(), CONV)
    expect(sig).toMatch(/^v2\.\d+\.[A-Za-z0-9_-]{43}$/)
    expect(signer.verify(signed(call(), sig), CONV)).toBeUndefined()
    // Arguments are compared byte for byte: even whitespace is a different call.
    expect(signer.verify(signed(call('{"service": "web"}'), sig), CONV)).toContain("does not match")
    expect(signer.verify(signed(call(undefined, "note"), sig), CONV)).toContain("does not match")
    expect(signer.verify(signed(call(undefined, undefined, "c2"), sig), CONV)).toContain("does not match")
  })

  test("the issue time is covered by the MAC, and expiry is enforced", () => {
    let now = 1_700_000_000_000
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60, now: () => now })
    const sig = signer.sign(call(), CONV)
    const [, issued, mac] = sig.split(".")
    // Moving the issue time forward to dodge expiry breaks the MAC.
    expect(signer.verify(signed(call(), `v2.${Number(issued) + 1000}.${mac}`), CONV)).toContain(
      "does not match",
    )
    now += 60_000
    expect(signer.verify(signed(call(), sig), CONV)).toBeUndefined()
    now += 1_000
    expect(signer.verify(signed(call(), sig), CONV)).toContain("expired")
  })

  test("a signature from the future (beyond clock skew) is refused", () => {
    let now = 1_700_000_000_000
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60, now: () => now })
    const sig = signer.sign(call(), CONV)
    now -= 3_600_000
    expect(signer.verify(signed(call(), sig), CONV)).toContain("future")
  })

  test("different keys do not accept each other's signatures; without a secret, one random key per process", () => {
    const a = new ApprovalSigner({ secret: "a", ttlSeconds: 60 })
    const b = new ApprovalSigner({ secret: "b", ttlSeconds: 60 })
    expect(b.verify(signed(call(), a.sign(call(), CONV)), CONV)).toContain("does not match")
    const p1 = new ApprovalSigner({ ttlSeconds: 60 })
    const p2 = new ApprovalSigner({ ttlSeconds: 60 })
    expect(p2.verify(signed(call(), p1.sign(call(), CONV)), CONV)).toBeUndefined()
    expect(a.verify(signed(call(), p1.sign(call(), CONV)), CONV)).toContain("does not match")
  })

  test("missing and malformed signatures", () => {
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60 })
    expect(signer.verify(call(), CONV)).toContain("no signature")
    for (const bad of [
      "",
      "v1",
      "v2.1.abc",
      `v2.x.${"A".repeat(43)}`,
      `v2.1.${"A".repeat(42)}`,
      "v2.1.a+b/",
    ]) {
      expect(signer.verify(signed(call(), bad), CONV)).toContain("malformed")
    }
  })

  test("a signature is bound to its conversation", () => {
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60 })
    const sig = signer.sign(call(), CONV)
    expect(signer.verify(signed(call(), sig), CONV)).toBeUndefined()
    expect(signer.verify(signed(call(), sig), "conversation-b")).toContain("does not match")
  })

  test("a spent signature is refused until it expires; spending is all or none when full", () => {
    let now = 1_700_000_000_000
    const spent = new SpentApprovals(2)
    const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 60, now: () => now, spent })
    const one = signed(call(), signer.sign(call(), CONV))
    expect(signer.spend([one])).toBeUndefined()
    expect(signer.verify(one, CONV)).toContain("already decided")
    const two = signed(call("{}"), signer.sign(call("{}"), CONV))
    const three = signed(call("[]"), signer.sign(call("[]"), CONV))
    expect(signer.spend([two, three])).toContain("too many")
    expect(signer.verify(two, CONV)).toBeUndefined()
    // Once the first has expired its entry makes room.
    now += 61_000
    const four = signed(call("1"), signer.sign(call("1"), CONV))
    const five = signed(call("2"), signer.sign(call("2"), CONV))
    expect(signer.spend([four, five])).toBeUndefined()
  })
})
