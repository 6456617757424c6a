/**
 * Maps whatever the openai SDK throws to a ModelError kind, and says whether another attempt
 * could help. Aborts are not classified here: the caller checks its own signal first, so a
 * cancelled request is never reported as a provider failure.
 */
import OpenAI from "openai"
import { ModelError, type ModelErrorKind } from "../errors.ts"
import { redactKnown } from "../redact.ts"
import { isRetryableStatus } from "./retry.ts"

export type Failure = {
  kind: ModelErrorKind
  retryable: boolean
  status?: number
  headers?: Headers
  /** The provider's own words, when it gave any. */
  detail: string
}

export function classifyError(error: unknown): Failure {
  if (error instanceof ModelError) return { kind: error.kind, retryable: false, detail: error.message }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return { kind: "timeout", retryable: true, detail: "no response before the timeout" }
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return { kind: "unavailable", retryable: true, detail: connectionDetail(error) }
  }
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const status = error.status
    const failure = { status, headers: error.headers, detail: providerMessage(error) }
    // OpenAI tells clients explicitly when a retry is pointless or worthwhile.
    const hint = error.headers?.get("x-should-retry")
    const retryable = hint === "true" ? true : hint === "false" ? false : isRetryableStatus(status)
    if (status === 429) return { ...failure, kind: "rate_limit", retryable }
    if (status === 408) return { ...failure, kind: "timeout", retryable }
    if (status === 401 || status === 403) return { ...failure, kind: "auth", retryable: false }
    if (status >= 500 || status === 409) return { ...failure, kind: "unavailable", retryable }
    return { ...failure, kind: "bad_request", retryable: false }
  }
  // A 2xx body that is not JSON makes the SDK's parser throw.
  if (error instanceof SyntaxError) {
    return {
      kind: "invalid_response",
      retryable: false,
      detail: `unparsable response body (${error.message})`,
    }
  }
  return {
    kind: "unavailable",
    retryable: false,
    detail: error instanceof Error ? error.message : String(error),
  }
}

function providerMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body: unknown = error.error
  if (body && typeof body === "object" && "message" in body && typeof body.message === "string")
    return body.message
  if (typeof body === "string" && body) return body
  return error.message
}

function connectionDetail(error: InstanceType<typeof OpenAI.APIConnectionError>): string {
  const cause = error.cause instanceof Error ? error.cause.message : undefined
  return cause ? `${error.message} (${cause})` : error.message
}

const WHAT: Record<ModelErrorKind, string> = {
  rate_limit: "rate limited the request",
  auth: "refused the credentials (check the API key)",
  bad_request: "rejected the request",
  unavailable: "is unavailable",
  timeout: "timed out",
  invalid_response: "returned an invalid response",
}

/** Characters of a provider's own words kept in the error; a proxy may answer with a whole page. */
const MAX_DETAIL = 1000

/**
 * The ModelError for a failure. The provider's words are redacted here, where they enter dupin,
 * so no response, SSE event or log line carries them raw: a proxy or gateway that echoes the
 * request's Authorization header (or the key in a URL) would otherwise hand the key to every API
 * client. `secrets` are the keys this model holds, found verbatim whatever their shape.
 */
export function toModelError(
  failure: Failure,
  modelId: string,
  attempts: number,
  secrets: readonly (string | undefined)[] = [],
): ModelError {
  const status = failure.status ? ` (HTTP ${failure.status})` : ""
  const tries = attempts > 1 ? ` after ${attempts} attempts` : ""
  const cut = failure.detail.length > MAX_DETAIL ? `${failure.detail.slice(0, MAX_DETAIL)}…` : failure.detail
  const detail = redactKnown(cut, secrets)
  return new ModelError(
    `Model ${modelId}: the provider ${WHAT[failure.kind]}${status}${tries}: ${detail}`,
    failure.kind,
    failure.status,
  )
}
