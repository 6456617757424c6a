/**
 * Container environments in `docker inspect` / `podman inspect` JSON (finding R4): `"Env": [
 * "NAME=value", … ]` carries API keys and DSNs under names no key rule knows (`STRIPE_LIVE`,
 * `DATABASE_DSN`). The names stay (they say how a container is configured), every value goes.
 * One forward scan with indexOf, no regex: 10 MB of hostile `"Env":[` costs milliseconds.
 */
export function redactContainerEnv(text: string, redacted: string): string {
  if (!text.includes('"Env"')) return text
  const parts: string[] = []
  let last = 0
  let from = 0
  for (let key = text.indexOf('"Env"', from); key !== -1; key = text.indexOf('"Env"', from)) {
    let i = skipSpace(text, key + 5)
    if (text[i] === ":") i = skipSpace(text, i + 1)
    if (text[i] === "[") {
      i++
      for (;;) {
        i = skipSpace(text, i)
        if (text[i] !== '"') break
        const close = closingQuote(text, i + 1)
        if (close === -1) break
        const entry = text.slice(i + 1, close)
        const eq = entry.indexOf("=")
        parts.push(text.slice(last, i + 1), eq === -1 ? entry : entry.slice(0, eq), "=", redacted)
        last = close
        i = skipSpace(text, close + 1)
        if (text[i] !== ",") break
        i++
      }
    }
    from = Math.max(i, key + 5)
  }
  parts.push(text.slice(last))
  return parts.join("")
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\t" || text[i] === "\r")) i++
  return i
}

/** The index of the quote ending a JSON string that starts at `i`, or -1 (none on this line). */
function closingQuote(text: string, i: number): number {
  for (; i < text.length; i++) {
    const c = text[i]
    if (c === "\\") i++
    else if (c === '"') return i
    else if (c === "\n") return -1
  }
  return -1
}
