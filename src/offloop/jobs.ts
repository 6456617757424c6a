/**
 * Work that runs off the event loop (worker.ts), as plain functions of plain data so the same code
 * runs in the worker and, where a worker cannot start, on the main thread. Each job's size or
 * shape is chosen by someone outside dupin: a tool's output, a client's schema, a model's answer.
 */
import { linkSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { compileJsonSchema } from "../json-schema.ts"
import { redact } from "../redact.ts"
import { redactSecretValues } from "../redact-values.ts"
import { type ParsedBody, parseJsonBody } from "./json-body.ts"

export type Job =
  /** Tool output to redact (several results of one step travel together). */
  | { kind: "redact"; texts: string[] }
  /** A model's answer against a client's `response_format` schema (already accepted once). */
  | { kind: "check-answer"; schema: Record<string, unknown>; answer: string }
  /** A large request body (transferred): parsed, long top-level arrays sent back as JSON pieces. */
  | { kind: "parse-body"; chunks: Uint8Array[] }
  /**
   * A tool's kept output bytes (transferred, not copied) as text; with `runs` (both streams
   * wrote), each stream's part too. A string comes back at the cost of a copy of its buffer;
   * decoding 10 MB here allocates and touches fresh memory, ~40 ms on a VM.
   */
  | { kind: "decode"; bytes: Uint8Array | FileBytes; runs?: readonly DecodeRun[] }
  /**
   * A tool's long kept output (transferred): decoded, redacted whole (a Secret's `data:` comes
   * before its `kind:`, so a prefix alone cannot be redacted), written to `file`; only the first
   * `prefixChars` come back. `secrets` are the configured values (the worker has no list).
   */
  | {
      kind: "ingest"
      bytes: Uint8Array | FileBytes
      runs?: readonly DecodeRun[]
      secrets: readonly string[]
      prefixChars: number
      file: string
    }

/**
 * Output the sandbox helper wrote to a file (its first `length` bytes are the kept output): read
 * here, so the bytes never reach the event loop, and removed once read.
 */
export type FileBytes = { path: string; length: number }

export type DecodeRun = { stream: "stdout" | "stderr"; end: number }
export type Decoded = { output: string; stdout?: string; stderr?: string }
/** An ingested output: its redacted prefix (and each stream's raw prefix when both wrote). */
export type Ingested = Decoded & { chars: number; lines: number }

export type JobResult<J extends Job> = J extends { kind: "redact" }
  ? string[]
  : J extends { kind: "decode" }
    ? Decoded
    : J extends { kind: "ingest" }
      ? Ingested
      : J extends { kind: "parse-body" }
        ? ParsedBody
        : string | undefined

export type Value = string[] | string | Decoded | Ingested | ParsedBody | undefined
export type Reply = { ok: true; value: Value } | { ok: false; message: string }

export function runJob(job: Job): Value {
  switch (job.kind) {
    case "redact":
      return job.texts.map(redact)
    case "check-answer":
      return checkAnswer(job.schema, job.answer)
    case "decode":
      return decode(bytesOf(job.bytes), job.runs)
    case "ingest":
      return ingest(job)
    case "parse-body":
      return parseJsonBody(joinBytes(job.chunks), true)
  }
}

function bytesOf(source: Uint8Array | FileBytes): Uint8Array {
  if (source instanceof Uint8Array) return source
  try {
    return readFileSync(source.path).subarray(0, source.length)
  } finally {
    rmSync(source.path, { force: true })
  }
}

function ingest(job: Extract<Job, { kind: "ingest" }>): Ingested {
  const source = job.bytes
  const file = source instanceof Uint8Array ? undefined : source
  try {
    // A file that holds just the kept bytes, of one stream: read straight into text, so the bytes
    // are never held beside it (a second 10 MB for the collector to free; memory, issue 19).
    const whole = file !== undefined && !job.runs && statSync(file.path).size === file.length
    const bytes = whole ? undefined : file ? readFileSync(file.path).subarray(0, file.length) : source
    const decoded = bytes ? UTF8.decode(bytes as Uint8Array) : readFileSync(file!.path, "utf8")
    const text = redact(redactSecretValues(decoded, job.secrets))
    // Nothing to redact: the helper's file becomes the spill file as it is, instead of a second
    // copy of the output encoded and written.
    const asIs = whole && text === decoded && decoded.charCodeAt(0) !== BOM
    if (!asIs || !linked(file!.path, job.file)) writeFileSync(job.file, text, { mode: 0o600, flag: "wx" })
    const parts =
      job.runs && bytes
        ? {
            stdout: prefix(streamText(bytes as Uint8Array, job.runs, "stdout"), job.prefixChars),
            stderr: prefix(streamText(bytes as Uint8Array, job.runs, "stderr"), job.prefixChars),
          }
        : {}
    return { output: prefix(text, job.prefixChars), ...parts, chars: text.length, lines: countLines(text) }
  } finally {
    if (file) rmSync(file.path, { force: true })
  }
}

/** A byte order mark, which reading the spill file back would drop (the output keeps it). */
const BOM = 0xfeff

/** Gives `from`'s file the name `to` too (one file system, `to` new); the caller removes `from`. */
function linked(from: string, to: string): boolean {
  try {
    linkSync(from, to)
    return true
  } catch {
    return false
  }
}

/** Lines as read_tool_output counts them (a trailing newline does not start another line). */
function countLines(text: string): number {
  if (text.length === 0) return 0
  let lines = 1
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++
  return text.endsWith("\n") ? lines - 1 : lines
}

/** The first `chars` characters, not splitting a surrogate pair. */
function prefix(text: string, chars: number): string {
  if (text.length <= chars) return text
  const end = /[\uD800-\uDBFF]/.test(text[chars - 1] ?? "") ? chars - 1 : chars
  return text.slice(0, end)
}

function joinBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let total = 0
  for (const chunk of chunks) total += chunk.byteLength
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

/** Invalid bytes become U+FFFD; a leading BOM is kept (it is output, as Buffer#toString kept it). */
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true })

/** The bytes as text, and with `runs` each stream's part (its runs joined in order). */
export function decode(bytes: Uint8Array, runs?: readonly DecodeRun[]): Decoded {
  const output = UTF8.decode(bytes)
  if (!runs) return { output }
  return { output, stdout: streamText(bytes, runs, "stdout"), stderr: streamText(bytes, runs, "stderr") }
}

export function streamText(
  bytes: Uint8Array,
  runs: readonly DecodeRun[],
  stream: DecodeRun["stream"],
): string {
  const part = new Uint8Array(bytes.byteLength)
  let length = 0
  let start = 0
  for (const run of runs) {
    if (run.stream === stream) {
      part.set(bytes.subarray(start, run.end), length)
      length += run.end - start
    }
    start = run.end
  }
  return UTF8.decode(part.subarray(0, length))
}

/** Why `answer` does not match `schema`, or undefined when it does. */
export function checkAnswer(schema: Record<string, unknown>, answer: string): string | undefined {
  let value: unknown
  try {
    value = JSON.parse(answer)
  } catch {
    return "the answer is not valid JSON"
  }
  return compileJsonSchema(schema).validate(value)
}
