import type { Socket, TCPSocketListener } from "bun"
import { log } from "../log.ts"
import { OWN_PROCESS_REFUSED } from "./own-process-refusal.ts"
import { RequestFraming } from "./request-framing.ts"
import type { Endpoint } from "./tcp-socket-inode.ts"

export type HeaderGuardOptions = {
  hostname: string
  port: number
  /** The unix socket the HTTP server listens on. */
  upstream: string
  /** A request's header block must be complete this long after its first byte (or the connect). */
  headerTimeoutMs: number
  maxHeaderBytes: number
  /**
   * Whether to turn a new connection away (a tool of dupin's own: own-process-peer.ts). The
   * inner server cannot tell: behind the guard every request comes from the guard.
   */
  refuse?: (peer: Endpoint, local: Endpoint) => boolean
}

const HIGH_WATER_BYTES = 1 << 20
const REFUSED_BODY = JSON.stringify({ detail: OWN_PROCESS_REFUSED, error_code: 4010 })
const REFUSED = `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(REFUSED_BODY)}\r\nconnection: close\r\n\r\n${REFUSED_BODY}`

function queued(queue: readonly Uint8Array[]): number {
  let total = 0
  for (const bytes of queue) total += bytes.byteLength
  return total
}

type Connection = {
  framing: RequestFraming
  upstream: Socket<Connection> | undefined
  client: Socket<Connection>
  /** Bytes waiting for a socket that could not take them yet (backpressure), per direction. */
  toUpstream: Uint8Array[]
  toClient: Uint8Array[]
  deadline: Timer | undefined
  closed: boolean
  /** The client sent FIN (half-close after its request): passed on once its bytes are through. */
  clientEnded: boolean
}

/**
 * A TCP front for the HTTP server that closes any connection whose request headers are not
 * complete within a deadline (slowloris). Bun.serve has only an idle timeout, and every byte
 * resets it: one header byte every few seconds holds a connection, and its memory and file
 * descriptor, for ever. Behind the guard the server listens on a private unix socket; bytes are
 * passed through unchanged both ways, and the guard follows request framing only to know when a
 * header block is in progress.
 */
export type HeaderGuard = {
  readonly hostname: string
  readonly port: number
  /** Stops accepting connections; open ones go on. */
  stopAccepting(): void
  /**
   * Waits up to `ms` for the open connections to end (each ends once the server closes its side
   * and the last bytes reached the client), then closes what is left.
   */
  close(ms: number): Promise<void>
}

export function listenWithHeaderGuard(options: HeaderGuardOptions): HeaderGuard {
  const open = new Set<Connection>()
  let settled: (() => void) | undefined
  const close = (c: Connection) => {
    if (c.closed) return
    c.closed = true
    clearTimeout(c.deadline)
    // What the server sent last (a stream's final event) still goes out before the end.
    flush(c.client, c.toClient, undefined)
    c.client.end()
    c.upstream?.end()
    open.delete(c)
    if (open.size === 0) settled?.()
  }
  const armDeadline = (c: Connection) => {
    clearTimeout(c.deadline)
    c.deadline = setTimeout(() => {
      if (c.framing.state !== "headers") return
      log.warn("closing a connection whose request headers did not arrive in time", {
        timeout_ms: options.headerTimeoutMs,
        header_bytes: c.framing.headerBytes,
      })
      close(c)
    }, options.headerTimeoutMs)
  }
  // Past this many bytes queued for a slow reader, the other side is paused (TCP backpressure)
  // instead of buffering a stream's output in dupin's memory.
  const send = (
    target: Socket<Connection> | undefined,
    queue: Uint8Array[],
    bytes: Uint8Array,
    source: Socket<Connection>,
  ) => {
    if (target && queue.length === 0) {
      const written = target.write(bytes)
      if (written === bytes.byteLength) return
      queue.push(bytes.subarray(Math.max(0, written)))
    } else {
      queue.push(bytes)
    }
    if (queued(queue) > HIGH_WATER_BYTES) source.pause()
  }
  const flush = (target: Socket<Connection>, queue: Uint8Array[], source: Socket<Connection> | undefined) => {
    while (queue.length > 0) {
      const head = queue[0] as Uint8Array
      const written = target.write(head)
      if (written < head.byteLength) {
        queue[0] = head.subarray(Math.max(0, written))
        return
      }
      queue.shift()
    }
    source?.resume()
  }
  const forwardEnd = (c: Connection) => {
    if (c.clientEnded && c.upstream && c.toUpstream.length === 0) c.upstream.shutdown()
  }

  const listener: TCPSocketListener<Connection> = Bun.listen<Connection>({
    hostname: options.hostname,
    port: options.port,
    allowHalfOpen: true,
    socket: {
      open(client) {
        const peer = { address: client.remoteAddress, port: client.remotePort }
        const refused =
          options.refuse?.(peer, { address: client.localAddress, port: client.localPort }) === true
        const c: Connection = {
          framing: new RequestFraming(options.maxHeaderBytes),
          upstream: undefined,
          client,
          toUpstream: [],
          toClient: [],
          deadline: undefined,
          closed: refused,
          clientEnded: false,
        }
        client.data = c
        if (refused) {
          client.end(REFUSED)
          return
        }
        open.add(c)
        armDeadline(c)
        Bun.connect<Connection>({
          unix: options.upstream,
          socket: {
            open(upstream) {
              upstream.data = c
              if (c.closed) {
                upstream.end()
                return
              }
              c.upstream = upstream
              flush(upstream, c.toUpstream, c.client)
              forwardEnd(c)
            },
            data(upstream, bytes) {
              send(c.client, c.toClient, bytes, upstream)
            },
            drain(upstream) {
              flush(upstream, c.toUpstream, c.client)
              forwardEnd(c)
            },
            close() {
              close(c)
            },
            error() {
              close(c)
            },
          },
        }).catch(() => close(c))
      },
      data(client, bytes) {
        const c = client.data
        if (c.closed) return
        const before = c.framing.started
        if (!c.framing.feed(bytes)) {
          close(c)
          return
        }
        // A new request began in this chunk: its header block gets a fresh deadline.
        if (c.framing.state !== "headers") clearTimeout(c.deadline)
        else if (c.framing.started !== before) armDeadline(c)
        send(c.upstream, c.toUpstream, bytes, client)
      },
      drain(client) {
        flush(client, client.data.toClient, client.data.upstream)
      },
      // A client may send its request and half-close (`nc -N`, some probes): the server still
      // answers, so the FIN is passed on rather than closing both ways.
      end(client) {
        client.data.clientEnded = true
        forwardEnd(client.data)
      },
      close(client) {
        close(client.data)
      },
      error(client) {
        close(client.data)
      },
    },
  })
  return {
    hostname: listener.hostname,
    port: listener.port,
    stopAccepting: () => listener.stop(false),
    close: async (ms) => {
      listener.stop(false)
      if (open.size > 0) {
        const done = new Promise<void>((resolve) => {
          settled = resolve
        })
        await Promise.race([done, Bun.sleep(ms)])
      }
      for (const c of [...open]) close(c)
      listener.stop(true)
    },
  }
}
