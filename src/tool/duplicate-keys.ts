/**
 * The first object key that appears twice in the same object of a JSON text, or undefined.
 * `JSON.parse` keeps the last of duplicates silently, while whoever reads the text (an approver
 * reading the signed arguments, a log) sees both: `{"command":"ls","command":"rm -rf /"}` reads
 * as `ls` and runs `rm -rf /`. Keys are compared as JSON.parse decodes them (`"a"` and `"\u0061"`
 * are the same key).
 *
 * One linear pass over text that JSON.parse has already accepted, so it only tells strings, keys
 * and nesting apart; no backtracking, no recursion.
 */
export function duplicateKey(json: string): string | undefined {
  // Per open container: the keys seen so far (objects) or undefined (arrays), and whether the
  // next string in it is a key.
  const keys: Array<Set<string> | undefined> = []
  let expectKey = false
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(json, i)
      const top = keys.at(-1)
      if (expectKey && top) {
        const raw = json.slice(i, end + 1)
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1)
        if (top.has(key)) return key
        top.add(key)
        expectKey = false
      }
      i = end
    } else if (c === OPEN_OBJECT) {
      keys.push(new Set())
      expectKey = true
    } else if (c === OPEN_ARRAY) {
      keys.push(undefined)
      expectKey = false
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      keys.pop()
      expectKey = false
    } else if (c === COMMA) {
      expectKey = keys.at(-1) !== undefined
    }
  }
  return undefined
}

/** Index of the closing quote of the string opening at `start`. */
function stringEnd(json: string, start: number): number {
  for (let i = start + 1; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (c === BACKSLASH) i++
    else if (c === QUOTE) return i
  }
  return json.length - 1
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const COMMA = 0x2c
