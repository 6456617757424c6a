import type { PipelineResult, StageExit } from "./spawn.ts"

/**
 * Keeps the first `cap` bytes of a run's output in arrival order and counts the rest. The kept
 * bytes live in one buffer that grows in place (a resizable ArrayBuffer: no copy per growth, and
 * only the pages written are resident) and are decoded once, into `output`.
 */
export class OutputCapture {
  readonly #buffer: ArrayBuffer
  #kept = 0
  /** Bytes read in total, kept or not. */
  seen = 0
  /** Where each run of consecutive same-stream bytes ends in the buffer. */
  readonly #runs: StreamRun[] = []

  constructor(readonly cap: number) {
    const max = Math.max(0, cap)
    this.#buffer = new ArrayBuffer(Math.min(max, INITIAL_CAPTURE_BYTES), { maxByteLength: max })
  }

  get full(): boolean {
    return this.#kept >= this.cap
  }

  add(stream: StreamName, chunk: Uint8Array): void {
    this.seen += chunk.byteLength
    const room = this.cap - this.#kept
    if (room <= 0) return
    const bytes = chunk.byteLength <= room ? chunk : chunk.subarray(0, room)
    const end = this.#kept + bytes.byteLength
    if (end > this.#buffer.byteLength) {
      this.#buffer.resize(Math.min(this.cap, Math.max(end, this.#buffer.byteLength * 2)))
    }
    new Uint8Array(this.#buffer, this.#kept, bytes.byteLength).set(bytes)
    this.#kept = end
    const last = this.#runs.at(-1)
    if (last?.stream === stream) last.end = end
    else this.#runs.push({ stream, end })
  }

  result(fields: {
    stages: StageExit[]
    started: number
    timedOut?: boolean
    aborted?: boolean
    exitCode?: number | null
    signalCode?: string | null
    error?: string
  }): PipelineResult {
    const kept = new Uint8Array(this.#buffer, 0, this.#kept)
    const output = UTF8.decode(kept)
    const part = streamParts(output, kept, this.#runs)
    return {
      exitCode: fields.exitCode ?? null,
      signalCode: fields.signalCode ?? null,
      output,
      get stdout() {
        return part("stdout")
      },
      get stderr() {
        return part("stderr")
      },
      outputBytes: this.seen,
      truncatedBytes: this.seen - this.#kept,
      timedOut: fields.timedOut ?? false,
      aborted: fields.aborted ?? false,
      durationMs: Math.round(performance.now() - fields.started),
      stages: fields.stages,
      ...(fields.error ? { error: fields.error } : {}),
    }
  }
}

export type StreamName = "stdout" | "stderr"
type StreamRun = { stream: StreamName; end: number }

/** Invalid bytes become U+FFFD; a leading BOM is kept (it is output, as Buffer#toString kept it). */
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true })

/** Bytes of the first allocation; most outputs never need more. */
const INITIAL_CAPTURE_BYTES = 64 * 1024

/**
 * `stdout` and `stderr` of a capture, decoded on first use: tools read `output` alone, and a
 * second and third decoded copy of 10 MB is what made big outputs expensive. When one stream
 * wrote everything (the usual case) its part is `output`, and the bytes are not held.
 */
function streamParts(
  output: string,
  kept: Uint8Array,
  runs: readonly StreamRun[],
): (s: StreamName) => string {
  const only = runs.length === 0 ? "stdout" : runs.length === 1 ? runs[0]?.stream : undefined
  return only ? (stream) => (stream === only ? output : "") : decodeOnDemand(kept, runs)
}

/** A closure of its own, so the single-stream case above does not keep the bytes reachable. */
function decodeOnDemand(kept: Uint8Array, runs: readonly StreamRun[]): (s: StreamName) => string {
  const parts: Partial<Record<StreamName, string>> = {}
  return (stream) => {
    const known = parts[stream]
    if (known !== undefined) return known
    const bytes = new Uint8Array(kept.byteLength)
    let length = 0
    let start = 0
    for (const run of runs) {
      if (run.stream === stream) {
        bytes.set(kept.subarray(start, run.end), length)
        length += run.end - start
      }
      start = run.end
    }
    const text = UTF8.decode(bytes.subarray(0, length))
    parts[stream] = text
    return text
  }
}
