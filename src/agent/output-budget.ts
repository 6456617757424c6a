import { TRUNCATION_MARKER } from "../context/truncate.ts"
import { type StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
import type { ToolResultObject } from "./events.ts"

const UTF8 = new TextEncoder()
const MIN_READ_BYTES = 1024
const DECODE = new TextDecoder()

/** At most the first `bytes` UTF-8 bytes of `text`, never splitting a character. */
function headBytes(text: string, bytes: number): string {
  // A UTF-16 unit is at most three UTF-8 bytes: short text needs no encoding at all.
  if (text.length <= bytes / 3) return text
  const buffer = new Uint8Array(Math.max(0, bytes))
  const { read, written } = UTF8.encodeInto(text, buffer)
  return read === text.length ? text : DECODE.decode(buffer.subarray(0, written))
}

/**
 * Tool output one request may keep, all steps together. The spawn cap bounds one run; this bounds
 * the sum, so eighty calls printing 10 MB each cannot pin 800 MB (and more in copies) per request.
 * Outputs are counted as they finish; the one that crosses the line and every later one are cut,
 * and the model is told why, so it narrows its commands instead of repeating them.
 */
export class OutputBudget {
  #used = 0

  constructor(readonly maxBytes: number) {}

  get remaining(): number {
    return Math.max(0, this.maxBytes - this.#used)
  }

  /**
   * The read cap for a run that starts now: no run reads more than the request has left, but
   * always a little, so a run past the budget still shows output (cut below, with the note) rather
   * than looking like one that printed nothing.
   */
  readCap(perRun: number): number {
    return Math.min(perRun, Math.max(this.remaining, MIN_READ_BYTES))
  }

  /**
   * Counts a finished result's output and cuts it to what is left. `readCap` is the cap the run
   * was read with: output that reached a cap the budget lowered was cut by the budget too, and the
   * model must hear so. Mutates and returns `result`.
   */
  keep(result: StructuredToolResult, readCap = Number.POSITIVE_INFINITY): StructuredToolResult {
    if (result.data === null || result.data === undefined) return result
    const text = result.dataText()
    // A long output's text is its start; the whole is in a file and counts whole.
    const size = result.spill?.bytes ?? Buffer.byteLength(text, "utf8")
    const room = this.remaining
    if (size <= room && size < readCap) {
      this.#used += size
      return result
    }
    // Cut by the budget: what the model reads is what is left, nothing to page.
    result.spill?.remove()
    result.spill = undefined
    const kept = headBytes(text, Math.min(room, size))
    this.#used = Math.min(this.maxBytes, this.#used + Buffer.byteLength(kept, "utf8"))
    result.data = `${kept}\n[dupin: this request's tool output budget (limits.request_tool_output_max_bytes = ${this.maxBytes} bytes) is used up: this output was cut at ${Buffer.byteLength(kept, "utf8")} bytes. Make fewer calls or narrow them (filters, line limits) instead of repeating them.]\n${TRUNCATION_MARKER}`
    return result
  }
}

/**
 * A result as echoed to an API client (events, `tool_calls`): the spec's object, with `data` and
 * `error` cut to `maxBytes` each. The model keeps its own capped copy; a client watching the run
 * does not need megabytes per call, and a response that repeats every output whole is the memory
 * bomb the request budget exists to stop.
 */
export function echoResult(result: StructuredToolResult, maxBytes: number): ToolResultObject {
  const json = result.toJSON()
  const data = typeof json.data === "string" ? cutForEcho(json.data, maxBytes) : json.data
  const error = json.error === null ? null : cutForEcho(json.error, maxBytes)
  // The wire knows the spec's three statuses (CONTRACT §6): a run that printed nothing is a
  // success with `data: ""`; `no_data` stays a library-side state (and the model's hint).
  if (result.status === ToolResultStatus.NO_DATA) {
    return { ...json, status: ToolResultStatus.SUCCESS, data: data ?? "", error }
  }
  return { ...json, data, error }
}

function cutForEcho(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3) return text
  const size = Buffer.byteLength(text, "utf8")
  if (size <= maxBytes) return text
  return `${headBytes(text, maxBytes)}\n[dupin: output shown up to ${maxBytes} of ${size} bytes]`
}
