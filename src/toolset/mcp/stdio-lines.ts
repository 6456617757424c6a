/**
 * The stdio transport's framing: one JSON-RPC message per line. Unlike the SDK's ReadBuffer, which
 * copies the whole pending buffer on every chunk (quadratic: a 32 MiB line in 64 KiB chunks costs
 * over a second of CPU), the pieces of a line are kept apart and joined once it ends. A line past
 * `max` bytes throws (bounded memory); a line that is not a JSON-RPC message (a server logging to
 * stdout) is skipped. A line longer than `inlineMax` is not decoded here: decoding and parsing cost
 * about 50 ms per MB on the event loop (a 12 MB notification stalled the server for a second,
 * finding R12), so it is handed back as bytes for the transport to drop or parse off the loop.
 */
import { deserializeMessage, type JSONRPCMessage } from "@modelcontextprotocol/client"

const LF = 0x0a

export class LineTooLong extends Error {}

/** A complete line: a message parsed here, or the bytes of a long one. */
export type Line = { kind: "message"; message: JSONRPCMessage } | { kind: "long"; bytes: Uint8Array }

export class MessageLines {
  #pieces: Uint8Array[] = []
  #size = 0
  /** Lines skipped because they were not JSON-RPC messages. */
  skipped = 0
  /** Long lines dropped while they arrived, because nobody waited for them (`wanted`). */
  dropped = 0
  /** The current line is long and unwanted: its bytes are not kept. */
  #discarding = false

  /**
   * `wanted` says whether a long line may be needed (a response we wait for); when not, its bytes
   * are dropped as they arrive instead of being kept (16 MB a line, several a second, is garbage
   * the collector would stall on).
   */
  constructor(
    readonly max: number,
    readonly inlineMax = Number.POSITIVE_INFINITY,
    readonly wanted: () => boolean = () => true,
  ) {}

  /** The lines completed by `chunk`. */
  push(chunk: Uint8Array): Line[] {
    const messages: Line[] = []
    let start = 0
    for (let end = chunk.indexOf(LF); end >= 0; end = chunk.indexOf(LF, start)) {
      this.#add(chunk.subarray(start, end))
      start = end + 1
      if (this.#discarding) {
        this.#discarding = false
        this.dropped += 1
        continue
      }
      const bytes = Buffer.concat(this.#pieces, this.#size)
      this.#pieces = []
      this.#size = 0
      if (bytes.length > this.inlineMax) {
        messages.push({ kind: "long", bytes })
        continue
      }
      const line = bytes.toString("utf8").replace(/\r$/, "")
      if (line.trim() === "") continue
      try {
        messages.push({ kind: "message", message: deserializeMessage(line) })
      } catch {
        this.skipped += 1
      }
    }
    if (start < chunk.length) this.#add(chunk.subarray(start))
    return messages
  }

  clear(): void {
    this.#pieces = []
    this.#size = 0
    this.#discarding = false
  }

  #add(piece: Uint8Array): void {
    if (this.#discarding) return
    if (this.#size + piece.length > this.inlineMax && !this.wanted()) {
      this.#pieces = []
      this.#size = 0
      this.#discarding = true
      return
    }
    if (this.#size + piece.length > this.max) {
      this.clear()
      throw new LineTooLong(`the MCP server sent a message larger than ${this.max} bytes; it was not read`)
    }
    this.#pieces.push(piece)
    this.#size += piece.length
  }
}
