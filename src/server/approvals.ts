import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { ToolCall } from "../llm/types.ts"

/**
 * Stateless approvals (CONTRACT §5): a pending tool call travels to the client and back inside the
 * history, so the server signs exactly what it would run (call id, tool name, raw arguments) plus
 * when it signed it. A client can decide a call, but cannot change it or invent one.
 *
 * Format: `v1.<issuedAtSeconds>.<base64url HMAC-SHA256>`.
 */
export class ApprovalSigner {
  readonly #key: Uint8Array
  readonly #ttlSeconds: number
  readonly #now: () => number

  constructor(options: { secret?: string | undefined; ttlSeconds: number; now?: () => number }) {
    this.#key = options.secret ? new TextEncoder().encode(options.secret) : PROCESS_KEY
    this.#ttlSeconds = options.ttlSeconds
    this.#now = options.now ?? Date.now
  }

  sign(call: ToolCall): string {
    const issuedAt = Math.floor(this.#now() / 1000)
    return `${VERSION}.${issuedAt}.${this.#mac(call, issuedAt).toString("base64url")}`
  }

  /** Why the call's signature is not acceptable, or undefined when it is. */
  verify(call: ToolCall): string | undefined {
    const signature = call.pending_approval?.signature
    if (typeof signature !== "string") return "it carries no signature"
    const match = SIGNATURE.exec(signature)
    if (!match) return "its signature is malformed"
    const issuedAt = Number(match[1])
    const presented = Buffer.from(match[2] ?? "", "base64url")
    const expected = this.#mac(call, issuedAt)
    // Checked before the expiry so that nothing about an unauthentic signature is revealed.
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      return "its signature does not match the call (was it changed, or signed by another server?)"
    }
    const age = Math.floor(this.#now() / 1000) - issuedAt
    if (age < -CLOCK_SKEW_SECONDS) return "its signature was issued in the future"
    if (age > this.#ttlSeconds) return `its approval expired (approvals are valid for ${this.#ttlSeconds} s)`
    return undefined
  }

  #mac(call: ToolCall, issuedAt: number): Buffer {
    // JSON of a fixed-shape array: unambiguous, whatever characters the fields contain.
    const payload = JSON.stringify([VERSION, issuedAt, call.id, call.function.name, call.function.arguments])
    return createHmac("sha256", this.#key).update(payload).digest()
  }
}

const VERSION = "v1"
const SIGNATURE = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/
/** Servers behind one load balancer may disagree slightly about the time. */
const CLOCK_SKEW_SECONDS = 300
/**
 * Without `server.approval_secret`, one random key per process: approvals then survive neither a
 * restart nor a hop to another replica, which is why the setting exists.
 */
const PROCESS_KEY = randomBytes(32)
