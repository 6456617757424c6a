/**
 * The stdio transport's framing: one JSON-RPC message per line. Unlike the SDK's ReadBuffer, which
 * copies the whole pending buffer on every chunk (quadratic: a 32 MiB line in 64 KiB chunks costs
 * over a second of CPU), the pieces of a line are kept apart and joined once it ends. A line past
 * `max` bytes throws (bounded memory); a line that is not a JSON-RPC message (a server logging to
 * stdout) is skipped. A line longer than `inlineMax` is handed back as bytes, for the reader to
 * drop unread or keep only if it is a response it waits for (`responseIn`): a hostile server's
 * 12 MB notifications, several a second, must cost nothing (finding R12).
 *
 * This runs in the stdio worker (stdio-worker.ts), which does not load the MCP SDK: the envelope
 * is checked here (`asMessage`), as the SDK's JSONRPCMessageSchema checks it; the client checks
 * each result against its method's schema.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client"

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
      const message = parseMessage(line)
      if (message) messages.push({ kind: "message", message })
      else this.skipped += 1
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

/** The line as a JSON-RPC message, or undefined (not JSON, or not a JSON-RPC 2.0 envelope). */
export function parseMessage(line: string): JSONRPCMessage | undefined {
  try {
    return asMessage(JSON.parse(line))
  } catch {
    return undefined
  }
}

/** A long line kept only as a response (a notification or request that long is dropped). */
export function responseIn(bytes: Uint8Array): JSONRPCMessage | undefined {
  const message = parseMessage(new TextDecoder().decode(bytes))
  return message && !("method" in message) ? message : undefined
}

/** `value` when it is a request, notification, result or error of JSON-RPC 2.0. */
function asMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== "2.0") return undefined
  if ("method" in value) {
    if (typeof value.method !== "string") return undefined
    if (value.params !== undefined && !isObject(value.params)) return undefined
    return !("id" in value) || isId(value.id) ? (value as JSONRPCMessage) : undefined
  }
  if (!isId(value.id)) return undefined
  if ("result" in value) return isObject(value.result) ? (value as JSONRPCMessage) : undefined
  const error = value.error
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string") return undefined
  return value as JSONRPCMessage
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function isId(id: unknown): boolean {
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id))
}
