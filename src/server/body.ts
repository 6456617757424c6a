import { RequestError } from "../errors.ts"

/**
 * Reads a JSON request body under a byte cap. The Content-Length header is checked first (cheap
 * refusal), and the cap is enforced again while reading, because a chunked body has no length and
 * a client can lie about it.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN)
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes)
  const bytes = await readCapped(request, maxBytes)
  if (bytes.length === 0)
    throw new RequestError("The request body is empty; send a JSON object.", { kind: "schema" })
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    throw new RequestError("The request body is not valid UTF-8 JSON.", { kind: "schema" })
  }
  const depth = nestingDepth(text)
  if (depth > MAX_DEPTH) {
    throw new RequestError(`The request body is nested ${depth} levels deep; the limit is ${MAX_DEPTH}.`, {
      kind: "schema",
    })
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new RequestError(`The request body is not valid JSON: ${reason}`, { kind: "schema" })
  }
}

/**
 * No legitimate chat request nests deeper than a few levels. Deep nesting is refused before
 * parsing: validators that recurse or stringify values (Elysia's error messages call toString on
 * arrays) overflow the stack on 10,000 levels and would answer 500.
 */
const MAX_DEPTH = 64

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

async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

function tooLarge(maxBytes: number): RequestError {
  return new RequestError(
    `The request body is larger than the limit of ${maxBytes} bytes (server.max_body_bytes).`,
    {
      kind: "too_large",
    },
  )
}
