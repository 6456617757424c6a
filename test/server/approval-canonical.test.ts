import { expect, test } from "bun:test"
import type { ToolCall } from "../../src/llm/types.ts"
import { ApprovalSigner } from "../../src/server/approvals.ts"

const call: ToolCall = {
  id: "c1",
  type: "function",
  function: { name: "restart", arguments: '{"service":"web"}' },
}
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/**
 * Findings R14: the 12 spellings of one approval (leading zeros in the time field × the four
 * characters that differ only in the last base64url character's unused bits).
 */
function spellings(signature: string): string[] {
  const [version, issued, mac] = signature.split(".") as [string, string, string]
  const last = ALPHABET.indexOf(mac.at(-1) as string)
  const base = last - (last % 4)
  const macs = [0, 1, 2, 3].map((i) => `${mac.slice(0, -1)}${ALPHABET[base + i]}`)
  return ["", "0", "00"].flatMap((zeros) => macs.map((m) => `${version}.${zeros}${issued}.${m}`))
}

test("R14: of the 12 spellings of one signature, exactly one is accepted, and only once", () => {
  const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 600 })
  const signature = signer.sign(call, "conv")
  const variants = spellings(signature)
  expect(new Set(variants).size).toBe(12)
  expect(variants).toContain(signature)
  const accepted: string[] = []
  // Each spelling is presented as its own resume, in a shuffled order, canonical last.
  for (const spelling of [...variants.filter((v) => v !== signature), signature, signature]) {
    const decided = { ...call, pending_approval: { signature: spelling } }
    if (signer.verify(decided, "conv") !== undefined) continue
    expect(signer.spend([decided])).toBeUndefined()
    accepted.push(spelling)
  }
  expect(accepted).toEqual([signature])
})

test("R14: a non-canonical spelling presented first does not spend the approval, nor run", () => {
  const signer = new ApprovalSigner({ secret: "k", ttlSeconds: 600 })
  const signature = signer.sign(call, "conv")
  const [, issued, mac] = signature.split(".") as [string, string, string]
  expect(
    signer.verify({ ...call, pending_approval: { signature: `v2.0${issued}.${mac}` } }, "conv"),
  ).toContain("malformed")
  expect(signer.verify({ ...call, pending_approval: { signature } }, "conv")).toBeUndefined()
})
