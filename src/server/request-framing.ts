/**
 * Just enough HTTP/1.1 request framing to know, byte by byte, whether a connection is in the
 * middle of a request's header block: header end (an empty line), then a body of Content-Length
 * bytes or chunked framing, then the next request. Bun's parser still parses everything; this only
 * tells the header guard when a header deadline runs. Anything it cannot follow leaves it waiting
 * for headers, where the deadline closes the connection: it errs toward closing.
 */
export type FramingState =
  | "headers"
  | "body"
  | "chunk-size"
  | "chunk-data"
  | "chunk-end"
  | "trailers"
  | "between"

const LATIN1 = new TextDecoder("latin1")
const LF = 0x0a
const CR = 0x0d
/** A chunk-size line or trailer line longer than this is not a real client. */
const MAX_LINE = 4096

export class RequestFraming {
  state: FramingState = "headers"
  /** Header blocks begun on this connection; a change tells the caller to restart its deadline. */
  started = 1
  /** Bytes of the current header block so far. */
  headerBytes = 0
  #head: Uint8Array[] = []
  #line: number[] = []
  /** Body or chunk bytes still to come. */
  #remaining = 0
  /** Whether the next header byte starts a line (an LF there ends the block). */
  #lineStart = true

  constructor(readonly maxHeaderBytes: number) {}

  /** Feeds client bytes; returns false when the header block grows past the cap. */
  feed(chunk: Uint8Array): boolean {
    let i = 0
    while (i < chunk.length) {
      switch (this.state) {
        case "between":
          this.state = "headers"
          this.started++
          this.headerBytes = 0
          this.#head = []
          this.#lineStart = true
          break
        case "headers": {
          // Scanned in place; only the header bytes are copied (Bun reuses the chunk's buffer).
          const start = i
          let ended = false
          while (i < chunk.length) {
            const byte = chunk[i++] as number
            if (byte === LF) {
              // An empty line (LF or CR LF right after a line end) ends the block; a leading
              // empty line before the request line is tolerated as HTTP/1.1 asks.
              if (this.#lineStart && this.headerBytes + (i - start) > 2) {
                ended = true
                break
              }
              this.#lineStart = true
            } else if (byte !== CR) {
              this.#lineStart = false
            }
          }
          this.headerBytes += i - start
          if (this.headerBytes > this.maxHeaderBytes) return false
          this.#head.push(chunk.slice(start, i))
          if (ended) this.#endHeaders()
          break
        }
        case "body":
        case "chunk-data": {
          const take = Math.min(this.#remaining, chunk.length - i)
          i += take
          this.#remaining -= take
          if (this.#remaining === 0) this.state = this.state === "body" ? "between" : "chunk-end"
          break
        }
        case "chunk-size":
        case "chunk-end":
        case "trailers": {
          const byte = chunk[i++] as number
          if (byte !== LF) {
            if (this.#line.length++ >= MAX_LINE) return false
            if (byte !== CR) this.#line.push(byte)
            break
          }
          this.#endLine()
          break
        }
      }
    }
    return true
  }

  #endHeaders(): void {
    const text = LATIN1.decode(Buffer.concat(this.#head))
    this.#head = []
    const chunked = /^transfer-encoding:[^\n]*chunked/im.test(text)
    const length = /^content-length:[ \t]*(\d{1,15})[ \t]*\r?$/im.exec(text)
    if (chunked) {
      this.state = "chunk-size"
      this.#line = []
      return
    }
    this.#remaining = length ? Number(length[1]) : 0
    this.state = this.#remaining > 0 ? "body" : "between"
  }

  #endLine(): void {
    const line = LATIN1.decode(Uint8Array.from(this.#line))
    this.#line = []
    if (this.state === "chunk-end") {
      this.state = "chunk-size"
      return
    }
    if (this.state === "trailers") {
      if (line === "") this.state = "between"
      return
    }
    const size = Number.parseInt(line.split(";")[0]?.trim() ?? "", 16)
    if (!Number.isFinite(size) || size < 0) {
      // Unparsable: Bun refuses the request and closes; until then, count as headers.
      this.state = "headers"
      return
    }
    if (size === 0) {
      this.state = "trailers"
      return
    }
    this.#remaining = size
    this.state = "chunk-data"
  }
}
