/**
 * The wire between dupin and the sandbox helper. dupin writes one JSON request per line on the
 * helper's stdin; the helper answers in binary frames on its stdout (a 9-byte header: kind, run
 * id, payload length), so tool output crosses once, unencoded. Nothing here imports more than
 * the platform: the helper loads this file inside the sandbox at every start.
 */

/** Run a pipeline (one stage is a plain process); stage N's stdout feeds stage N+1. */
export type RunRequest = {
  t: "run"
  id: number
  stages: string[][]
  env: Record<string, string>
  cwd: string | null
  /**
   * The cwd lies in the private HOME, where it does not exist: made there (empty) first, so a
   * `dupin ask --bash` started in ~/somewhere still runs, seeing none of HOME.
   */
  makeCwd?: boolean
  /** Base64 of what the first stage reads; null: /dev/null. */
  stdin: string | null
  /** Bytes of output kept for dupin (framed or filed); the rest is drained and only counted. */
  cap: number
  /** The request the run belongs to, and the resident memory all its runs together may hold. */
  group: string
  memoryBytes: number
}

export type KillRequest = { t: "kill"; id: number; signal: "SIGTERM" | "SIGKILL" }

/** Resident memory all runs in this sandbox together may hold. */
export type LimitRequest = { t: "limit"; totalMemoryBytes: number }

export type HelperRequest = RunRequest | KillRequest | LimitRequest

export type StageEnd = { exitCode: number | null; signalCode: string | null }

export type RunDone = {
  stages: StageEnd[]
  /** Output bytes in total, forwarded or not. */
  seen: number
  /** Why the run could not start ("ENOENT"), with the stage that failed. */
  startError?: { stage: number; code: string; message: string }
  /** The run was killed because its request went over its memory quota. */
  memoryKilled?: boolean
  /**
   * Output past INLINE_OUTPUT_BYTES went to this file of the view's run area (a name, not a
   * path; hidden from every run) instead of the wire, all of it: `runs` say where each stream's
   * bytes end. dupin's worker reads and removes it.
   */
  file?: OutputFile
}

export type OutputFile = {
  name: string
  bytes: number
  runs: Array<{ stream: "stdout" | "stderr"; end: number }>
}

/**
 * Output up to this many bytes crosses the wire in frames; a longer output goes to a file whole,
 * so its bytes never reach dupin's event loop (finding R11: 8 parallel 10 MB outputs stalled it).
 */
export const INLINE_OUTPUT_BYTES = 128 * 1024
/** The names the helper gives output files (dupin accepts no other). */
export const OUTPUT_FILE_NAME = /^out-\d+-[0-9a-f]{16}$/

export const FRAME = { ready: 0, stdout: 1, stderr: 2, done: 3 } as const
export type FrameKind = (typeof FRAME)[keyof typeof FRAME]
export const HEADER_BYTES = 9

export function frame(kind: FrameKind, id: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + payload.byteLength)
  const view = new DataView(out.buffer)
  view.setUint8(0, kind)
  view.setUint32(1, id, true)
  view.setUint32(5, payload.byteLength, true)
  out.set(payload, HEADER_BYTES)
  return out
}

/** Splits a byte stream into frames; keeps a partial frame until the rest arrives. */
export class FrameReader {
  #pending = new Uint8Array(0)

  push(chunk: Uint8Array): Array<{ kind: number; id: number; payload: Uint8Array }> {
    const data = this.#pending.byteLength === 0 ? chunk : concat(this.#pending, chunk)
    const frames: Array<{ kind: number; id: number; payload: Uint8Array }> = []
    let at = 0
    while (data.byteLength - at >= HEADER_BYTES) {
      const view = new DataView(data.buffer, data.byteOffset + at, HEADER_BYTES)
      const length = view.getUint32(5, true)
      if (data.byteLength - at - HEADER_BYTES < length) break
      const start = at + HEADER_BYTES
      frames.push({
        kind: view.getUint8(0),
        id: view.getUint32(1, true),
        // A view, not a copy: readers copy what they keep (tool output is megabytes a second, and
        // every copy is fresh memory the event loop faults in).
        payload: data.subarray(start, start + length),
      })
      at = start + length
    }
    this.#pending = at === data.byteLength ? new Uint8Array(0) : data.slice(at)
    return frames
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength)
  out.set(a)
  out.set(b, a.byteLength)
  return out
}
