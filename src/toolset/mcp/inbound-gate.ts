/**
 * What an MCP server may make dupin do without being asked. Notifications are unsolicited: a
 * hostile server can send them at any rate and size, whether or not a call is in flight, and each
 * one is parsed and validated on the event loop (finding R12). So:
 *
 * - a long line (see stdio-lines.ts) is dropped unread while no request of ours is waiting for an
 *   answer; otherwise it is parsed off the event loop and only a response is kept;
 * - notifications past a rate are dropped before the client sees them.
 *
 * The gate knows the ids of our requests that wait for an answer from what the transport sends.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client"

/** Lines longer than this are never decoded on the event loop (about 3 ms of work at most). */
export const INLINE_LINE_BYTES = 64 * 1024
/** Notifications a server may send at once, and per second after that. */
const BURST = 200
const PER_SECOND = 100

type Id = string | number

export class InboundGate {
  readonly #waiting = new Set<Id>()
  #tokens = BURST
  #refilled = performance.now()
  /** Messages dropped (long lines nobody waits for, notifications over the rate). */
  dropped = 0

  /** Records a message dupin sends: a request waits for its response, a cancellation ends that. */
  sent(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message) this.#waiting.add(message.id)
    else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId
      if (id !== undefined) this.#waiting.delete(id)
    }
  }

  /** Whether a long line may be a response we wait for (else it is dropped unread). */
  get awaiting(): boolean {
    return this.#waiting.size > 0
  }

  /** Whether `message` goes on to the client; a response ends the wait for its id. */
  admit(message: JSONRPCMessage): boolean {
    if (!("method" in message)) {
      if ("id" in message && message.id !== undefined) this.#waiting.delete(message.id)
      return true
    }
    // Requests from the server (ping, roots) are answered by the SDK: they count like notifications.
    if (this.#take()) return true
    this.dropped += 1
    return false
  }

  /** A long line dropped unread. */
  drop(): void {
    this.dropped += 1
  }

  #take(): boolean {
    const now = performance.now()
    this.#tokens = Math.min(BURST, this.#tokens + ((now - this.#refilled) / 1000) * PER_SECOND)
    this.#refilled = now
    if (this.#tokens < 1) return false
    this.#tokens -= 1
    return true
  }
}
