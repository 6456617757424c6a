/**
 * Checks a GNU sed script for the commands that leave the text stream: `e` (run a command), `r`/`R`
 * (read a file into the output), `w`/`W` (write a file) and the `e`/`w` flags of `s`. The scanner
 * walks the real sed grammar (addresses, `s` and `y` with any delimiter, `a`/`i`/`c` text, labels)
 * so a forbidden command cannot hide as a "text" argument; anything it does not recognise fails
 * closed.
 */
export function sedScriptProblem(script: string): string | undefined {
  const s = script
  let i = 0
  const skip = (chars: RegExp) => {
    while (i < s.length && chars.test(s[i]!)) i++
  }
  /** Text up to an unescaped `delim` (GNU match_slash: only a backslash escapes, brackets do not). */
  const delimited = (delim: string): boolean => {
    while (i < s.length) {
      const c = s[i++]!
      if (c === "\\") i++
      else if (c === delim) return true
    }
    return false
  }
  const address = (): boolean => {
    const c = s[i]
    if (c === undefined) return true
    if (/[0-9]/.test(c)) {
      skip(/[0-9]/)
      if (s[i] === "~") {
        i++
        skip(/[0-9]/)
      }
    } else if (c === "$") i++
    else if (c === "/" || c === "\\") {
      i++
      const delim = c === "\\" ? s[i++] : "/"
      if (delim === undefined || delim === "\n" || !delimited(delim)) return false
      skip(/[IM]/)
    }
    return true
  }
  while (i < s.length) {
    skip(/[\s;]/)
    if (i >= s.length) break
    if (!address()) return "an unterminated address"
    skip(/[ \t]/)
    if (s[i] === ",") {
      i++
      skip(/[ \t]/)
      if (s[i] === "+" || s[i] === "~") i++
      if (!address()) return "an unterminated address"
    }
    skip(/[ \t!]/)
    const cmd = s[i++]
    if (cmd === undefined) return "an address without a command"
    switch (cmd) {
      case "{":
      case "}":
        // A block brace may be followed directly by the next command (`/x/{p;d}`).
        continue
      case "=":
      case "d":
      case "D":
      case "g":
      case "G":
      case "h":
      case "H":
      case "n":
      case "N":
      case "p":
      case "P":
      case "x":
      case "z":
      case "F":
        break
      case "l":
      case "L":
      case "q":
      case "Q":
        skip(/[ \t0-9]/)
        break
      case "#":
      case ":":
      case "a":
      case "i":
      case "c":
        // Text to the end of the line; a backslash-newline continues it.
        while (i < s.length && s[i] !== "\n") i += s[i] === "\\" ? 2 : 1
        break
      case "b":
      case "t":
      case "T":
      case "v":
        while (i < s.length && !/[;\n]/.test(s[i]!)) i++
        break
      case "y": {
        const delim = s[i++]
        if (delim === undefined || delim === "\n" || delim === "\\") return "a malformed y command"
        if (!delimited(delim) || !delimited(delim)) return "an unterminated y command"
        break
      }
      case "s": {
        const delim = s[i++]
        if (delim === undefined || delim === "\n" || delim === "\\") return "a malformed s command"
        if (!delimited(delim) || !delimited(delim)) return "an unterminated s command"
        while (i < s.length && /[gpiImM0-9ew]/.test(s[i]!)) {
          const flag = s[i++]!
          if (flag === "e") return "the s///e flag (runs the pattern space as a command)"
          if (flag === "w") return "the s///w flag (writes a file)"
        }
        break
      }
      case "e":
        return "the e command (runs a command)"
      case "r":
      case "R":
        return `the ${cmd} command (reads a file)`
      case "w":
      case "W":
        return `the ${cmd} command (writes a file)`
      default:
        return `the unknown command ${JSON.stringify(cmd)}`
    }
    // Whatever follows a command must start a new one.
    skip(/[ \t]/)
    if (i < s.length && !/[;\n}#]/.test(s[i]!)) return `unexpected text after the ${cmd} command`
  }
  return undefined
}
