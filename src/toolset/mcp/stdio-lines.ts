/**
 * The stdio transport's framing: one JSON-RPC message per line. Unlike the SDK's ReadBuffer, which
 * copies the whole pending buffer on every chunk (quadratic: a 32 MiB line in 64 KiB chunks costs
 * over a second of CPU), the pieces of a line are kept apart and joined once it ends. A line past
 * `max` bytes throws (bounded memory); a line that is not a JSON-RPC message (a server logging to
 * stdout) is skipped.
 */
import { deserializeMessage, type JSONRPCMessage } from "@modelcontextprotocol/client"

const LF = 0x0a

export class LineTooLong extends Error {}

export class MessageLines {
  #pieces: Uint8Array[] = []
  #size = 0
  /** Lines skipped because they were not JSON-RPC messages. */
  skipped = 0

  constructor(readonly max: number) {}

  /** The messages completed by `chunk`. */
  push(chunk: Uint8Array): JSONRPCMessage[] {
    const messages: JSONRPCMessage[] = []
    let start = 0
    for (let end = chunk.indexOf(LF); end >= 0; end = chunk.indexOf(LF, start)) {
      this.#add(chunk.subarray(start, end))
      const line = Buffer.concat(this.#pieces).toString("utf8").replace(/\r$/, "")
      this.#pieces = []
      this.#size = 0
      start = end + 1
      if (line.trim() === "") continue
      try {
        messages.push(deserializeMessage(line))
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
  }

  #add(piece: Uint8Array): void {
    if (this.#size + piece.length > this.max) {
      this.clear()
      throw new LineTooLong(`the MCP server sent a message larger than ${this.max} bytes; it was not read`)
    }
    this.#pieces.push(piece)
    this.#size += piece.length
  }
}
