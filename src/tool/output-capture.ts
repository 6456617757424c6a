import { appendFileSync } from "node:fs"
import { type Decoded, type DecodeRun, decode, type FileBytes, streamText } from "../offloop/jobs.ts"
import { JobTimeout, offLoop } from "../offloop/runner.ts"
import { secretValues } from "../redact-values.ts"
import type { PipelineResult, StageExit } from "./spawn.ts"
import { PREFIX_CHARS, SpilledOutput, spillPath } from "./spilled-output.ts"

/**
 * Kept bytes up to this are decoded here (well under a millisecond: the usual tool output);
 * longer ones in the off-loop worker. A decoded 10 MB string is 10 MB of fresh memory, ~40 ms of
 * page faults on a VM, eight at a time in a step of parallel calls (finding R11); the worker's
 * string comes back as one copy, a few milliseconds.
 */
const INLINE_BYTES = 128 * 1024
/** Far above the ~50 ms 10 MB takes; past it the output is withheld. */
const DECODE_DEADLINE_MS = 60_000

/**
 * Keeps the first `cap` bytes of a run's output in arrival order and counts the rest. The kept
 * bytes live in one buffer, made at the first byte and doubled as needed (most runs print little
 * or nothing; a resizable ArrayBuffer reserving `cap` up front was 10 % of serve's CPU under load,
 * one address-space reservation per run), and are decoded once, into `output` (off the event
 * loop when long: the buffer is transferred to the worker, so `result` is the capture's last use).
 */
export class OutputCapture {
  #buffer = EMPTY
  /** `result` handed the buffer on: later bytes are only counted. */
  #done = false
  #kept = 0
  /** Bytes read in total, kept or not. */
  seen = 0
  /** Where each run of consecutive same-stream bytes ends in the buffer. */
  readonly #runs: StreamRun[] = []
  /** The kept bytes are in this file instead of the buffer (see adoptFile). */
  #file: string | undefined

  /** `spill`: a long output goes to a file (see SpilledOutput) and `output` is its redacted prefix. */
  constructor(
    readonly cap: number,
    private readonly spill = false,
  ) {}

  get full(): boolean {
    return this.#kept >= this.cap
  }

  /**
   * The run's kept output is the file at `path` (the sandbox helper wrote it there, and nothing
   * came in frames): `result` has the worker read it, so its bytes never touch the event loop.
   */
  adoptFile(path: string, bytes: number, runs: readonly StreamRun[]): void {
    if (this.#kept > 0 || this.#file) throw new Error("a capture adopts one output file, before any bytes")
    this.#file = path
    this.#kept = Math.min(bytes, this.cap)
    this.#runs.push(...runs.map((r) => ({ stream: r.stream, end: Math.min(r.end, this.#kept) })))
  }

  add(stream: StreamName, chunk: Uint8Array): void {
    this.seen += chunk.byteLength
    const room = this.cap - this.#kept
    // Past the cap, or after `result` handed the buffer to the worker: counted only.
    if (room <= 0 || this.#done) return
    const bytes = chunk.byteLength <= room ? chunk : chunk.subarray(0, room)
    if (this.#file) {
      // A note after an output that went to a file (a memory kill): a few bytes, appended.
      appendFileSync(this.#file, bytes)
      this.#noteRun(stream, this.#kept + bytes.byteLength)
      return
    }
    const end = this.#kept + bytes.byteLength
    if (end > this.#buffer.byteLength) {
      const grown = new Uint8Array(
        Math.min(this.cap, Math.max(end, this.#buffer.byteLength * 2, INITIAL_CAPTURE_BYTES)),
      )
      grown.set(this.#buffer.subarray(0, this.#kept))
      this.#buffer = grown
    }
    this.#buffer.set(bytes, this.#kept)
    this.#noteRun(stream, end)
  }

  #noteRun(stream: StreamName, end: number): void {
    this.#kept = end
    const last = this.#runs.at(-1)
    if (last?.stream === stream) last.end = end
    else this.#runs.push({ stream, end })
  }

  async result(fields: {
    stages: StageExit[]
    started: number
    timedOut?: boolean
    aborted?: boolean
    exitCode?: number | null
    signalCode?: string | null
    error?: string
  }): Promise<PipelineResult> {
    // Read before the transfer: a detached buffer's views are empty.
    const seen = this.seen
    const keptBytes = this.#kept
    this.#done = true
    const kept: Uint8Array | FileBytes = this.#file
      ? { path: this.#file, length: keptBytes }
      : this.#buffer.subarray(0, keptBytes)
    const { output, part, spilled } =
      kept instanceof Uint8Array && kept.byteLength <= INLINE_BYTES
        ? decodeHere(kept, this.#runs)
        : await decodeOffLoop(kept, this.#runs, this.spill)
    return {
      ...(spilled ? { spill: spilled } : {}),
      exitCode: fields.exitCode ?? null,
      signalCode: fields.signalCode ?? null,
      output,
      get stdout() {
        return part("stdout")
      },
      get stderr() {
        return part("stderr")
      },
      outputBytes: seen,
      truncatedBytes: seen - keptBytes,
      timedOut: fields.timedOut ?? false,
      aborted: fields.aborted ?? false,
      durationMs: Math.round(performance.now() - fields.started),
      stages: fields.stages,
      ...(fields.error ? { error: fields.error } : {}),
    }
  }
}

export type StreamName = "stdout" | "stderr"
type StreamRun = DecodeRun

type Parts = { output: string; part: (s: StreamName) => string; spilled?: SpilledOutput }

function decodeHere(kept: Uint8Array, runs: readonly StreamRun[]): Parts {
  const { output } = decode(kept)
  return { output, part: streamParts(output, kept, runs) }
}

/** Both streams' parts come back with the output when both wrote: the bytes stay in the worker. */
async function decodeOffLoop(
  kept: Uint8Array | FileBytes,
  runs: readonly StreamRun[],
  spill: boolean,
): Promise<Parts> {
  const only = soleStream(runs)
  const size = kept instanceof Uint8Array ? kept.byteLength : kept.length
  const mixed = only ? {} : { runs: runs.map((r) => ({ ...r })) }
  let decoded: Decoded
  let spilled: SpilledOutput | undefined
  try {
    if (spill) {
      const file = spillPath()
      const job = {
        kind: "ingest",
        bytes: kept,
        ...mixed,
        secrets: secretValues(),
        prefixChars: PREFIX_CHARS,
        file,
      } as const
      const ingested = await offLoop(job, DECODE_DEADLINE_MS, NEVER)
      decoded = ingested
      spilled = new SpilledOutput(file, ingested.chars, size, ingested.lines, ingested.output.slice(0, 200))
    } else decoded = await offLoop({ kind: "decode", bytes: kept, ...mixed }, DECODE_DEADLINE_MS, NEVER)
  } catch (error) {
    // Past the deadline, or the file could not be written: the model hears why, never raw bytes.
    const why = error instanceof JobTimeout ? "did not finish in time" : `failed: ${String(error)}`
    decoded = { output: `[output withheld: decoding its ${size} bytes ${why}]` }
  }
  const { output } = decoded
  if (only)
    return { output, part: (stream) => (stream === only ? output : ""), ...(spilled ? { spilled } : {}) }
  return { output, part: (stream) => decoded[stream] ?? "", ...(spilled ? { spilled } : {}) }
}

const NEVER = new AbortController().signal

/** The stream that wrote everything, if one did (no output counts as stdout). */
function soleStream(runs: readonly StreamRun[]): StreamName | undefined {
  return runs.length === 0 ? "stdout" : runs.length === 1 ? runs[0]?.stream : undefined
}

/** Bytes of the first allocation at least; most outputs never need more. */
const INITIAL_CAPTURE_BYTES = 16 * 1024
const EMPTY = new Uint8Array(0)

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
  const only = soleStream(runs)
  return only ? (stream) => (stream === only ? output : "") : decodeOnDemand(kept, runs)
}

/** A closure of its own, so the single-stream case above does not keep the bytes reachable. */
function decodeOnDemand(kept: Uint8Array, runs: readonly StreamRun[]): (s: StreamName) => string {
  const parts: Partial<Record<StreamName, string>> = {}
  return (stream) => {
    parts[stream] ??= streamText(kept, runs, stream)
    return parts[stream]
  }
}
