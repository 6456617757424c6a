import { describe, expect, test } from "bun:test"
import { findMatches, grepText, readLines } from "../../src/context/output-pager.ts"
import { compileSearchPattern, type SearchPattern } from "../../src/context/search-pattern.ts"

const text = Array.from({ length: 100 }, (_, i) => `L${i + 1}${i === 49 ? " ERROR boom" : ""}`).join("\n")

function compiled(source: string, ignoreCase = false): SearchPattern {
  const pattern = compileSearchPattern(source, ignoreCase)
  if (typeof pattern === "string") throw new Error(pattern)
  return pattern
}

async function grep(source: string, maxMatches: number, contextLines: number) {
  const pattern = compiled(source)
  const found = await findMatches(text, pattern.test, { maxMatches, window: pattern.window, budgetMs: 5_000 })
  return { found, out: grepText(text, found.lines, { contextLines, maxChars: 10_000 }) }
}

describe("pager", () => {
  test("reads a line range with numbers, bounded by lines and characters", () => {
    const page = readLines(text, 48, 3, 10_000)
    expect(page).toEqual({ start: 48, lines: ["48: L48", "49: L49", "50: L50 ERROR boom"], total: 100 })
    expect(readLines(text, 1, 100, 14).lines).toEqual(["1: L1", "2: L2"])
    expect(readLines(text, 500, 10, 1000).lines).toEqual([])
  })

  test("long lines are clipped and say by how much", () => {
    const page = readLines(`short\n${"z".repeat(5000)}`, 2, 1, 100_000)
    expect(page.lines[0]).toContain("[line clipped: 3000 more characters]")
  })

  test("grep shows matches with context like grep -n -C and stops at max matches", async () => {
    const one = await grep("ERROR", 10, 1)
    expect(one.out).toEqual({ lines: ["49- L49", "50: L50 ERROR boom", "51- L51"], matches: 1, cut: false })
    const many = await grep("^L\\d+$", 3, 0)
    expect(many.found.more).toBe(true)
    expect(many.out.lines).toEqual(["1: L1", "2: L2", "3: L3"])
    const near = await grep("^L(5|7)$", 10, 1)
    expect(near.out.lines).toEqual(["4- L4", "5: L5", "6- L6", "7: L7", "8- L8"])
    const apart = await grep("^L(5|9)$", 10, 1)
    expect(apart.out.lines).toEqual(["4- L4", "5: L5", "6- L6", "--", "8- L8", "9: L9", "10- L10"])
  })

  test("a search past its time budget stops and says at which line", async () => {
    const slow = (line: string) => {
      Bun.sleepSync(2)
      return line === "never"
    }
    const found = await findMatches(text, slow, { maxMatches: 10, window: 100, budgetMs: 30 })
    expect(found.stoppedAt).toBeGreaterThan(1)
    expect(found.stoppedAt).toBeLessThan(100)
  })

  test("an aborted search stops", async () => {
    const abort = new AbortController()
    abort.abort()
    const slow = (line: string) => {
      Bun.sleepSync(2)
      return line === "never"
    }
    await expect(
      findMatches(text, slow, { maxMatches: 10, window: 100, budgetMs: 5_000, signal: abort.signal }),
    ).rejects.toThrow()
  })
})

describe("search patterns (RE2)", () => {
  test("patterns that backtrack exponentially in JavaScript run in linear time", () => {
    const line = "a".repeat(10_000)
    for (const source of ["(.|.)*Z", "(a+)+!", "(x*)*y", "(\\w+){2,}!", "(a|aa)+b"]) {
      const started = performance.now()
      expect(compiled(source).test(line)).toBe(false)
      // A backtracking engine takes ~0.5 s on (.|.)*Z here and far longer on the others.
      expect(performance.now() - started).toBeLessThan(250)
    }
  })

  test("a large pattern searches fewer characters of each line, so one line stays cheap", () => {
    // RE2's cost grows with pattern size times text searched: the bigger pattern gets the shorter
    // window, so their product (the work per line) stays bounded instead of a timed assertion.
    const big = compiled("[a-z]{1000}\\b[a-z ]{1000}\\b[0-9]")
    expect(big.window).toBeLessThan(1_000)
    const small = compiled("ERROR|WARN")
    expect(small.window).toBe(10_000)
    const line = Array.from(
      { length: 10_000 },
      (_, i) => "abcdefghijklmnopqrstuvwxyz "[(i * 13 + i * i) % 27],
    ).join("")
    // Still a real search over the window it is given.
    expect(big.test(line.slice(0, big.window))).toBe(false)
  })

  test("backreferences and lookaround are refused with a message naming RE2", () => {
    for (const source of ["(a)\\1", "(?<n>a)\\k<n>", "foo(?=bar)", "foo(?!bar)", "(?<=x)y", "(?<!x)y"]) {
      expect(compileSearchPattern(source, false)).toContain("RE2")
    }
    // Inside a class or escaped, the same characters are plain text.
    expect(compiled("[(?=]x").test("=x")).toBe(true)
    expect(compiled("\\(?=").test("=")).toBe(true)
  })

  test("JavaScript escapes and flags the model is used to keep working", () => {
    expect(compiled("\\u0041\\u{42}").test("xAB")).toBe(true)
    expect(compiled("(?<level>ERROR|WARN):\\s+\\d+").test("WARN: 12")).toBe(true)
    expect(compiled("error", true).test("ERROR")).toBe(true)
    expect(compiled("a\\/b").test("a/b")).toBe(true)
    expect(compileSearchPattern("(", false)).toContain("Invalid pattern")
    expect(compileSearchPattern("x".repeat(501), false)).toContain("longer than 500")
  })
})
