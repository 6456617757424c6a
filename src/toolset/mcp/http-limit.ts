/**
 * Bounded memory over HTTP, as the stdio transport's read cap: the SDK reads a whole JSON
 * response, or a whole SSE event, before it parses it, so a server answering with a giant blob
 * would grow dupin's memory without end. A response body is cut (the read fails) once one message
 * passes `MAX_MESSAGE_BYTES`: the JSON body as a whole, or the bytes of one SSE event (events end
 * at a blank line, so a long-lived stream of small events is never cut).
 */
import { INLINE_LINE_BYTES } from "./inbound-gate.ts"
import { MAX_MESSAGE_BYTES } from "./stdio-transport.ts"

const LF = 0x0a
const CR = 0x0d

/** The response with its body limited to `max` bytes per message. */
export function limitResponse(response: Response, max = MAX_MESSAGE_BYTES): Response {
  if (!response.body) return response
  let since = 0
  let lastWasLf = false
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        // Each blank line (an SSE event's end) closes a message and restarts the count after it.
        let start = 0
        let largest = 0
        for (let i = chunk.indexOf(LF); i >= 0; i = chunk.indexOf(LF, i + 1)) {
          let j = i - 1
          if (j >= 0 && chunk[j] === CR) j -= 1
          if (j >= 0 ? chunk[j] === LF : lastWasLf) {
            largest = Math.max(largest, since + i + 1 - start)
            since = 0
            start = i + 1
          }
        }
        since += chunk.length - start
        let k = chunk.length - 1
        if (k >= 0 && chunk[k] === CR) k -= 1
        if (k >= 0) lastWasLf = chunk[k] === LF
        if (Math.max(largest, since) > max) {
          controller.error(
            new Error(`the MCP server sent a message larger than ${max} bytes; it was not read`),
          )
          return
        }
        controller.enqueue(chunk)
      },
    }),
  )
  return new Response(limited, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}

/**
 * The response with every SSE event longer than `max` bytes left out, unread by the SDK (each
 * event is parsed and validated on the event loop: a 12 MB notification costs a second). Only for
 * streams that carry no answers we wait for (see open-client.ts). Events are passed on whole, once
 * their blank line has arrived, as the SSE parser would wait for it anyway.
 */
export function dropLongEvents(response: Response, max = INLINE_LINE_BYTES): Response {
  if (!response.body) return response
  let pieces: Uint8Array[] = []
  let size = 0
  let dropping = false
  /** Bytes of the current line before this chunk, CR excluded. */
  let lineBytes = 0
  const filtered = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let start = 0
        let lineStart = 0
        for (let i = chunk.indexOf(LF); i >= 0; i = chunk.indexOf(LF, i + 1)) {
          let length = lineBytes + (i - lineStart)
          if (i > lineStart && chunk[i - 1] === CR) length -= 1
          lineBytes = 0
          lineStart = i + 1
          if (length > 0) continue
          // A blank line: the event ends here.
          const part = chunk.subarray(start, i + 1)
          if (!dropping && size + part.byteLength <= max) {
            for (const piece of pieces) controller.enqueue(piece)
            controller.enqueue(part.slice())
          }
          pieces = []
          size = 0
          dropping = false
          start = i + 1
        }
        lineBytes += chunk.length - lineStart
        // A CR that ends the chunk belongs to a CR LF the next chunk completes.
        if (chunk.length > lineStart && chunk[chunk.length - 1] === CR) lineBytes -= 1
        const rest = chunk.subarray(start)
        if (dropping || rest.byteLength === 0) return
        if (size + rest.byteLength > max) {
          dropping = true
          pieces = []
          size = 0
          return
        }
        pieces.push(rest.slice())
        size += rest.byteLength
      },
    }),
  )
  return new Response(filtered, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}
