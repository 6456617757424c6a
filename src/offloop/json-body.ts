/**
 * A request body's JSON, parsed where it is cheap to: inline for small bodies, in the off-loop
 * worker for large ones (an 18 MB `conversation_history` is decoded, scanned and parsed in about
 * half a second, finding R2). The messages are the API's; both paths give the same ones.
 */

/**
 * No legitimate chat request nests deeper than a few levels. Deep nesting is refused before
 * parsing: validators that recurse or stringify values (Elysia's error messages call toString on
 * arrays) overflow the stack on 10,000 levels and would answer 500.
 */
export const MAX_DEPTH = 64

/**
 * The parsed body, or why it is not JSON. From the worker, long top-level arrays come back as
 * `pieces`, each the JSON text of a run of their elements: a string crosses to the event loop as
 * one copy, while a parsed object is rebuilt there whole, in one block.
 */
export type ParsedBody = { error: string } | { value: unknown; pieces?: Record<string, Pieces> }
/**
 * The JSON texts of a long array's runs of elements, UTF-8 in one buffer (moved to the event loop,
 * not copied: 20 MB of strings cost 90 ms to receive), piece `i` ending at `ends[i]`.
 */
export type Pieces = { bytes: Uint8Array; ends: number[] }

/** Elements of a long top-level array per piece (a few hundred KB of chat messages). */
const PIECE_ELEMENTS = 1000

export function parseJsonBody(bytes: Uint8Array, split = false): ParsedBody {
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return { error: "The request body is not valid UTF-8 JSON." }
  }
  const depth = nestingDepth(text)
  if (depth > MAX_DEPTH)
    return { error: `The request body is nested ${depth} levels deep; the limit is ${MAX_DEPTH}.` }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return { error: `The request body is not valid JSON: ${reason}` }
  }
  if (!split || typeof value !== "object" || value === null || Array.isArray(value)) return { value }
  const record = value as Record<string, unknown>
  const pieces: Record<string, Pieces> = {}
  const encoder = new TextEncoder()
  for (const [key, item] of Object.entries(record)) {
    if (!Array.isArray(item) || item.length <= PIECE_ELEMENTS) continue
    const encoded: Uint8Array[] = []
    for (let i = 0; i < item.length; i += PIECE_ELEMENTS)
      encoded.push(encoder.encode(JSON.stringify(item.slice(i, i + PIECE_ELEMENTS))))
    let total = 0
    for (const e of encoded) total += e.byteLength
    const bytes = new Uint8Array(total)
    const ends: number[] = []
    let at = 0
    for (const e of encoded) {
      bytes.set(e, at)
      at += e.byteLength
      ends.push(at)
    }
    pieces[key] = { bytes, ends }
    delete record[key]
  }
  return { value: record, pieces }
}

/** What a reply moves rather than copies. */
export function bodyTransfers(parsed: ParsedBody): ArrayBuffer[] {
  if ("error" in parsed || !parsed.pieces) return []
  return Object.values(parsed.pieces).map((p) => p.bytes.buffer as ArrayBuffer)
}

/** Maximum bracket depth outside strings, by one linear scan (no recursion). */
function nestingDepth(text: string): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) max = Math.max(max, ++depth)
    else if (c === 93 || c === 125) depth--
  }
  return max
}
