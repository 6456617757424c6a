/**
 * Signatures already decided in this process, each kept until its approval expires (after that
 * the signature is refused as expired anyway). With several replicas behind a load balancer the
 * set is per replica: a replay sent to another replica within the TTL is not caught here.
 *
 * Bounded: when full of unexpired entries, new approvals are refused (fail closed) rather than
 * forgetting old ones, which would reopen them to replay.
 */
export class SpentApprovals {
  readonly #expiresAt = new Map<string, number>()

  constructor(readonly max = 100_000) {}

  has(signature: string): boolean {
    return this.#expiresAt.has(signature)
  }

  /** Records every signature, or none when there is no room; returns whether it did. */
  spend(signatures: readonly string[], expiresAt: (signature: string) => number, now: number): boolean {
    if (this.#expiresAt.size + signatures.length > this.max) this.#sweep(now)
    if (this.#expiresAt.size + signatures.length > this.max) return false
    for (const s of signatures) this.#expiresAt.set(s, expiresAt(s))
    return true
  }

  #sweep(now: number): void {
    for (const [signature, expires] of this.#expiresAt) if (expires < now) this.#expiresAt.delete(signature)
  }
}
