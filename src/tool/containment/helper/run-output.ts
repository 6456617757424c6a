/**
 * One run's output, as the sandbox helper keeps it: the first `cap` bytes in arrival order, the
 * rest counted. Short output is held as frames and written with the run's end, in one write:
 * dupin wakes once per run, not once per chunk. An output that outgrows INLINE_OUTPUT_BYTES goes
 * to a file of the run area instead, whole, so its bytes never cross into dupin's event loop
 * (finding R11; see OutputFile). Loaded inside the sandbox: platform imports only.
 */
import { randomBytes } from "node:crypto"
import { closeSync, openSync, writeSync } from "node:fs"
import { join } from "node:path"
import { FRAME, frame, HEADER_BYTES, INLINE_OUTPUT_BYTES, type OutputFile, type RunDone } from "./protocol.ts"

type StreamFrame = typeof FRAME.stdout | typeof FRAME.stderr

export class RunOutput {
  /** Bytes read in total, kept or not. */
  seen = 0
  #kept = 0
  #held: Uint8Array[] = []
  #file: { fd: number; name: string } | undefined
  /** Where each run of same-stream bytes ends, over every byte kept. */
  readonly #runs: OutputFile["runs"] = []
  /** A file write failed (the area's disk is full): what was written is all that is kept. */
  #stopped = false

  constructor(
    readonly id: number,
    readonly cap: number,
    /** The view's run area, where an output file is made. */
    readonly area: string,
  ) {}

  keep(kind: StreamFrame, chunk: Uint8Array): void {
    this.seen += chunk.byteLength
    collectEvery(chunk.byteLength)
    const room = this.cap - this.#kept
    if (room <= 0 || this.#stopped) return
    const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room)
    if (!this.#file && this.#kept + part.byteLength > INLINE_OUTPUT_BYTES) {
      this.#file = openOutputFile(this.area, this.id)
      const held = this.#held.map((f) => f.subarray(HEADER_BYTES))
      this.#held = []
      if (!this.#file || !writeAll(this.#file.fd, held)) {
        this.#stopped = true
        return
      }
    }
    if (this.#file && !writeAll(this.#file.fd, [part])) {
      this.#stopped = true
      return
    }
    if (!this.#file) this.#held.push(frame(kind, this.id, part))
    this.#kept += part.byteLength
    const stream = kind === FRAME.stdout ? "stdout" : "stderr"
    const last = this.#runs.at(-1)
    if (last?.stream === stream) last.end = this.#kept
    else this.#runs.push({ stream, end: this.#kept })
  }

  /** Ends the output: the frames to write before the run's `done`, and the file `done` names. */
  finish(done: RunDone): Uint8Array[] {
    if (!this.#file) return this.#held
    closeSync(this.#file.fd)
    done.file = { name: this.#file.name, bytes: this.#kept, runs: this.#runs }
    return []
  }
}

/** Output bytes read between two collections (see collectEvery). */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024
let readSinceCollect = 0

/**
 * Every chunk read is fresh memory, garbage once kept or counted: a collection every few MB keeps
 * a big output's drain from growing the helper (500 MB grew it 25-30 MB before the collector ran
 * on its own, and a young-generation collection did not help; with this, 12 MB). The helper's heap
 * is small, so each collection takes a millisecond or two, about 60 of them per 500 MB.
 */
function collectEvery(bytes: number): void {
  readSinceCollect += bytes
  if (readSinceCollect < COLLECT_EVERY_BYTES) return
  readSinceCollect = 0
  Bun.gc(true)
}

/** A new output file in the run area (outside every run's view), or undefined when it cannot be made. */
function openOutputFile(area: string, id: number): { fd: number; name: string } | undefined {
  const name = `out-${id}-${randomBytes(8).toString("hex")}`
  try {
    return { fd: openSync(join(area, name), "wx", 0o600), name }
  } catch {
    return undefined
  }
}

/** Writes every byte of `parts`; false when the file takes no more (the disk is full). */
function writeAll(fd: number, parts: readonly Uint8Array[]): boolean {
  try {
    for (const part of parts) {
      for (let at = 0; at < part.byteLength; ) at += writeSync(fd, part, at)
    }
    return true
  } catch {
    return false
  }
}
