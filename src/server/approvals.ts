import type { ToolCall } from "../llm/types.ts"
import { canonicalSignature, parseSignature } from "./signature-format.ts"
import { SpentApprovals } from "./spent-approvals.ts"

/**
 * Stateless approvals (CONTRACT §5): a pending tool call travels to the client and back inside the
 * history, so the server signs exactly what it would run (call id, tool name, raw arguments), the
 * conversation it was asked in (conversation-id.ts) and when it signed it. A client can decide a
 * call, but cannot change it, invent one or move it into another conversation. Each signature is
 * honoured once per process (`spend`).
 *
 * Format: `v2.<issuedAtSeconds>.<base64url HMAC-SHA256>`.
 */
export class ApprovalSigner {
  readonly #key: Uint8Array
  readonly #ttlSeconds: number
  readonly #now: () => number
  readonly #spent: SpentApprovals

  constructor(options: {
    secret?: string | undefined
    ttlSeconds: number
    now?: () => number
    spent?: SpentApprovals
  }) {
    this.#key = options.secret ? new TextEncoder().encode(options.secret) : PROCESS_KEY
    this.#ttlSeconds = options.ttlSeconds
    this.#now = options.now ?? Date.now
    this.#spent = options.spent ?? new SpentApprovals()
  }

  sign(call: ToolCall, conversation: string): string {
    const issuedAt = Math.floor(this.#now() / 1000)
    return `${VERSION}.${issuedAt}.${this.#mac(call, conversation, issuedAt).toString("base64url")}`
  }

  /** Why the call's signature is not acceptable in `conversation`, or undefined when it is. */
  verify(call: ToolCall, conversation: string): string | undefined {
    const signature = call.pending_approval?.signature
    if (typeof signature !== "string") return "it carries no signature"
    const parsed = parseSignature(signature)
    if (!parsed) return "its signature is malformed"
    const { issuedAt, mac: presented } = parsed
    const expected = this.#mac(call, conversation, issuedAt)
    // Checked before the expiry so that nothing about an unauthentic signature is revealed.
    if (presented.length !== expected.length || !crypto.timingSafeEqual(presented, expected)) {
      return SIGNATURE_MISMATCH
    }
    const age = Math.floor(this.#now() / 1000) - issuedAt
    if (age < -CLOCK_SKEW_SECONDS) return "its signature was issued in the future"
    if (age > this.#ttlSeconds) return `its approval expired (approvals are valid for ${this.#ttlSeconds} s)`
    if (this.#spent.has(canonicalSignature(parsed)))
      return "its approval was already decided once (a decided history cannot be resent)"
    return undefined
  }

  /**
   * Marks verified signatures as used, all or none. Returns why not when the process holds too
   * many unexpired approvals to remember more.
   */
  spend(calls: readonly ToolCall[]): string | undefined {
    // Keyed by the canonical form, so that one approval has one key however it was spelled.
    const parsed = calls.flatMap((c) => parseSignature(c.pending_approval?.signature ?? "") ?? [])
    const signatures = parsed.map(canonicalSignature)
    const expiresAt = (signature: string) =>
      ((parseSignature(signature)?.issuedAt ?? 0) + this.#ttlSeconds) * 1000
    if (this.#spent.spend(signatures, expiresAt, this.#now())) return undefined
    return "the server holds too many recently decided approvals to remember more; retry later"
  }

  #mac(call: ToolCall, conversation: string, issuedAt: number): Buffer {
    // JSON of a fixed-shape array: unambiguous, whatever characters the fields contain.
    const payload = JSON.stringify([
      VERSION,
      issuedAt,
      conversation,
      call.id,
      call.function.name,
      call.function.arguments,
    ])
    // Bun's own HMAC: node:crypto costs ~10 ms of every start to load.
    return new Bun.CryptoHasher("sha256", this.#key).update(payload).digest()
  }
}

const VERSION = "v2"
/** Why a signature that does not verify is refused; AG-UI adds its own bindings to it. */
export const SIGNATURE_MISMATCH =
  "its signature does not match the call in this conversation (was the call or the conversation before it changed, or was it signed by another server?)"
/** Servers behind one load balancer may disagree slightly about the time. */
const CLOCK_SKEW_SECONDS = 300
/**
 * Without `server.approval_secret`, one random key per process: approvals then survive neither a
 * restart nor a hop to another replica, which is why the setting exists.
 */
const PROCESS_KEY = crypto.getRandomValues(new Uint8Array(32))
