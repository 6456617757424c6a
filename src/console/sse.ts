/** One server-sent event of `POST /api/chat` (CONTRACT §5: `data` is one line of JSON). */
export type SseEvent = { event: string; data: unknown }

/**
 * Reads an SSE body event by event. `: ping` comments are skipped; a frame whose data is not JSON
 * is skipped too rather than ending the conversation.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let buffered = ""
  for await (const chunk of body) {
    // Normalised on the whole buffer: a CRLF may be split across two chunks.
    buffered = (buffered + decoder.decode(chunk, { stream: true })).replaceAll("\r\n", "\n")
    let end = buffered.indexOf("\n\n")
    while (end >= 0) {
      const frame = parseFrame(buffered.slice(0, end))
      buffered = buffered.slice(end + 2)
      if (frame) yield frame
      end = buffered.indexOf("\n\n")
    }
  }
}

function parseFrame(frame: string): SseEvent | undefined {
  let event = "message"
  const data: string[] = []
  for (const line of frame.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim()
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""))
  }
  if (data.length === 0) return undefined
  try {
    return { event, data: JSON.parse(data.join("\n")) }
  } catch {
    return undefined
  }
}
