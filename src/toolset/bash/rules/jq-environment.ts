/**
 * Whether a jq filter may read the process environment (`$ENV`, `$ ENV`, the `env` builtin, also
 * inside string interpolations). Errs towards yes: a field named env (`.env`, `"env"`) is not a
 * read, but `{env}` counts as one.
 */
export function readsEnvironment(filter: string): boolean {
  // A `#` comment may hide a quote or sit between `$` and `ENV` (jq skips it like a blank), and
  // jq versions end comments differently: with one, any mention counts.
  if (filter.includes("#")) return /\b(ENV|env)\b/.test(filter)
  return /\$\s*ENV\b|(?<![.\w$])env\b/.test(outsideStrings(filter))
}

/**
 * The filter with the literal text of strings blanked out (interpolations kept), so `"env"` is
 * not taken for the builtin while `"\(env)"` still is.
 */
function outsideStrings(filter: string): string {
  let out = ""
  // Each entry is the paren depth of an open interpolation; the top is the innermost.
  const interpolations: number[] = []
  let inString = false
  let depth = 0
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i]!
    if (inString) {
      if (c === "\\" && filter[i + 1] === "(") {
        interpolations.push(depth++)
        inString = false
        out += "  "
        i++
      } else if (c === "\\") {
        out += "  "
        i++
      } else {
        if (c === '"') inString = false
        out += c === '"' ? c : " "
      }
      continue
    }
    if (c === '"') inString = true
    else if (c === "(") depth++
    else if (c === ")" && --depth === interpolations.at(-1)) {
      interpolations.pop()
      inString = true
      out += " "
      continue
    }
    out += c
  }
  return out
}
