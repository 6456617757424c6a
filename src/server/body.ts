import { RequestError } from "../errors.ts"
import { parseJsonBody } from "../offloop/json-body.ts"
import { offLoop } from "../offloop/runner.ts"
import { yieldToLoop } from "../offloop/yield.ts"

/**
 * Reads a JSON request body under a byte cap. The Content-Length header is checked first (cheap
 * refusal), and the cap is enforced again while reading, because a chunked body has no length and
 * a client can lie about it.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN)
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes)
  const chunks = await readCapped(request, maxBytes)
  let size = 0
  for (const chunk of chunks) size += chunk.byteLength
  if (size === 0) throw new RequestError("The request body is empty; send a JSON object.", { kind: "schema" })
  const parsed =
    size <= INLINE_BODY_BYTES
      ? parseJsonBody(joinChunks(chunks))
      : await offLoop({ kind: "parse-body", chunks }, PARSE_DEADLINE_MS, request.signal)
  if ("error" in parsed) throw new RequestError(parsed.error, { kind: "schema" })
  if (!parsed.pieces) return parsed.value
  // Long arrays rebuilt a piece at a time, with a turn for the event loop between pieces.
  const record = parsed.value as Record<string, unknown>
  const decoder = new TextDecoder()
  for (const [key, { bytes, ends }] of Object.entries(parsed.pieces)) {
    const items: unknown[] = []
    let start = 0
    for (const end of ends) {
      await yieldToLoop()
      for (const item of JSON.parse(decoder.decode(bytes.subarray(start, end))) as unknown[]) items.push(item)
      start = end
    }
    record[key] = items
  }
  return record
}

/** Bodies up to this are parsed here (a millisecond or so); larger ones in the off-loop worker. */
const INLINE_BODY_BYTES = 256 * 1024
/** Far above the second a 20 MB body takes. */
const PARSE_DEADLINE_MS = 30_000

/** The body's chunks as read (a large body is joined in the worker: 20 MB of fresh memory here is ~100 ms of page faults on a VM). */
async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array[]> {
  if (!request.body) return []
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  return chunks
}

function joinChunks(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0]
  let total = 0
  for (const chunk of chunks) total += chunk.byteLength
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

function tooLarge(maxBytes: number): RequestError {
  return new RequestError(
    `The request body is larger than the limit of ${maxBytes} bytes (server.max_body_bytes).`,
    {
      kind: "too_large",
    },
  )
}
