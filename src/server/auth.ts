import { RequestError } from "../errors.ts"

/** Routes a load balancer or orchestrator probes without credentials (CONTRACT §5). */
export const OPEN_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz"])

/**
 * Throws a 401 unless the request carries the configured token as `Authorization: Bearer <token>`
 * or `X-API-Key: <token>`. No token configured means no authentication (loopback use).
 */
export function authenticate(headers: Headers, token: string | undefined): void {
  if (!token) return
  const presented = bearer(headers.get("authorization")) ?? headers.get("x-api-key") ?? undefined
  if (presented === undefined) {
    throw new RequestError(
      "Authentication required: send Authorization: Bearer <token> or X-API-Key: <token>.",
      {
        kind: "auth",
      },
    )
  }
  if (!sameSecret(presented, token)) throw new RequestError("The API token is not valid.", { kind: "auth" })
}

function bearer(value: string | null): string | undefined {
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i)
  return match?.[1]
}

/**
 * Constant-time comparison. Hashing first gives equal-length inputs, so neither the content nor
 * the length of the token leaks through timing.
 */
export function sameSecret(a: string, b: string): boolean {
  // Bun's own hasher and Web Crypto's comparison: node:crypto costs ~10 ms of every start to load.
  const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest()
  return crypto.timingSafeEqual(digest(a), digest(b))
}
