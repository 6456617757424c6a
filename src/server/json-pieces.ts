import { isRecord } from "../is-record.ts"
import { yieldToLoop } from "../offloop/yield.ts"
import { jsonResponse } from "./errors.ts"

/** Elements of a long top-level array serialised between two turns of the event loop. */
const PIECE_ELEMENTS = 1000

/**
 * `jsonResponse`, streamed in pieces when the body holds a long top-level array: an answer
 * echoes the client's `conversation_history`, up to the 20 MB body cap, and one JSON.stringify of
 * it held the event loop for a third of a second (finding R2). Same bytes as JSON.stringify.
 */
export function piecewiseJsonResponse(status: number, body: unknown): Response {
  if (!isRecord(body) || body.toJSON !== undefined) return jsonResponse(status, body)
  const long = Object.values(body).some((v) => Array.isArray(v) && v.length > PIECE_ELEMENTS)
  if (!long) return jsonResponse(status, body)
  const encoder = new TextEncoder()
  const parts = pieces(body)
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await parts.next()
      if (next.done) controller.close()
      else controller.enqueue(encoder.encode(next.value))
    },
    async cancel() {
      await parts.return(undefined)
    },
  })
  return new Response(stream, { status, headers: { "content-type": "application/json" } })
}

async function* pieces(body: Record<string, unknown>): AsyncGenerator<string> {
  let separator = "{"
  for (const [key, value] of Object.entries(body)) {
    // JSON.stringify leaves these keys out.
    if (value === undefined || typeof value === "function" || typeof value === "symbol") continue
    const name = `${separator}${JSON.stringify(key)}:`
    separator = ","
    if (!Array.isArray(value) || value.length <= PIECE_ELEMENTS) {
      yield `${name}${JSON.stringify(value)}`
      continue
    }
    yield `${name}[`
    for (let i = 0; i < value.length; i += PIECE_ELEMENTS) {
      await yieldToLoop()
      const part = JSON.stringify(value.slice(i, i + PIECE_ELEMENTS))
      yield `${i > 0 ? "," : ""}${part.slice(1, -1)}`
    }
    yield "]"
  }
  yield separator === "{" ? "{}" : "}"
}
