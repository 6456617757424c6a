import { DupinError, type FieldError, ModelError, RequestError } from "../errors.ts"
import { log } from "../log.ts"

/** CONTRACT §5: the one error body every failure of the API uses. */
export type ErrorBody = { detail: string; error_code: number; errors?: FieldError[] }

export type MappedError = { status: number; body: ErrorBody }

/**
 * The single mapping from anything thrown while serving a request to a status and body. `code` is
 * Elysia's error code (`VALIDATION`, `PARSE`, `NOT_FOUND`, ...) when Elysia raised the error.
 */
export function mapError(error: unknown, code?: unknown): MappedError {
  if (code === "PARSE" && error instanceof Error && error.cause instanceof DupinError)
    return fromDupin(error.cause)
  if (error instanceof ModelError) logModelError(error)
  if (error instanceof DupinError) return fromDupin(error)
  switch (code) {
    case "VALIDATION":
      // Routes check their bodies themselves (body-schema.ts); this only guards a stray schema.
      return fromDupin(new RequestError("The request does not match the schema.", { kind: "schema" }))
    case "PARSE":
      return fromDupin(new RequestError("The request body is not valid JSON.", { kind: "schema" }))
    case "NOT_FOUND":
      return { status: 404, body: { detail: "No such route.", error_code: 4040 } }
  }
  // Anything else is a bug or an infrastructure fault: log it, and tell the caller no internals.
  log.error("request failed", {
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  })
  return { status: 500, body: { detail: "Internal server error.", error_code: 1 } }
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  })
}

export function errorResponse(error: unknown, code?: unknown): Response {
  const { status, body } = mapError(error, code)
  // RFC 9110: a 401 names the scheme the client should use. After a 413 the rest of the body is
  // never read: closing the connection stops the client from sending it. A 503 is a draining
  // server: the client reconnects, and a load balancer sends it to another instance.
  const headers: Record<string, string> =
    status === 401
      ? { "www-authenticate": "Bearer" }
      : status === 413 || status === 503
        ? { connection: "close" }
        : {}
  return jsonResponse(status, body, headers)
}

/** A provider failure in the operator's log, with the URL tried (never a key: redacted at the source). */
export function logModelError(error: ModelError): void {
  log.warn("model call failed", { detail: error.message, endpoint: error.endpoint, kind: error.kind })
}

function fromDupin(error: DupinError): MappedError {
  return { status: error.status, body: error.toJSON() }
}
