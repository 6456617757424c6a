// HTML to text with a maintained entity decoder (issue 12 item 15): every named and numeric
// entity, in text and attributes, an attribute holding `>` never leaks markup into the text, and
// the conversion stays linear on hostile pages (compared as a time ratio, not an absolute time).
import { describe, expect, test } from "bun:test"
import { htmlToText } from "../../../src/toolset/internet/html-to-text.ts"

describe("entities", () => {
  test("named entities beyond the common twenty are decoded", async () => {
    const html =
      "<p>&hearts; &eacute;&Eacute; &euro;5 &frac12; &rarr; &alpha;&Omega; &NotEqualTilde; &zwj;</p>"
    expect(await htmlToText(html)).toBe("♥ éÉ €5 ½ → αΩ ≂̸ \u200d")
  })

  test("numeric entities, and HTML's rules for a missing semicolon", async () => {
    expect(await htmlToText("<p>&#x1F600;&#128512; &#65 &amp &copy 2026 &lt;b&gt;</p>")).toBe(
      "😀😀 A & © 2026 <b>",
    )
    // Not entities: left as written.
    expect(await htmlToText("<p>&bogus; AT&T &#xZZ;</p>")).toBe("&bogus; AT&T &#xZZ;")
  })

  test("attributes are decoded as attributes (href, alt)", async () => {
    const html = `<a href="/q?a=1&amp;b=2&copy=3">q</a> <img alt="caf&eacute; &gt; bar">`
    expect(await htmlToText(html, { baseUrl: "https://docs.test/" })).toBe(
      "[q](https://docs.test/q?a=1&b=2&copy=3) [image: café > bar]",
    )
  })

  test("the longest named entity split at the edge of a piece of a long text node is decoded whole", async () => {
    for (const pad of [32_760, 32_765, 32_768, 32_790]) {
      const text = await htmlToText(`<p>${"x".repeat(pad)}&CounterClockwiseContourIntegral;end</p>`)
      expect(text.slice(pad)).toBe("∳end")
    }
  })
})

describe("markup in attributes", () => {
  test.each([
    ["a quoted title", `<p title="a > b <i>x</i>">hello</p>`],
    ["single quotes", `<p title='a>b' data-x='<script>alert(1)</script>'>hello</p>`],
    ["a script tag's attribute", `<script data-x="a>b">var secret = 1</script><p>hello</p>`],
    ["a style tag's attribute", `<style media="a>b">p { color: red }</style><p>hello</p>`],
    ["an svg attribute", `<svg data-x="a>b"><text>drawn</text></svg><p>hello</p>`],
    ["a comment with >", `<!-- a > b --><p>hello</p>`],
  ])("%s holding > leaks nothing", async (_name, html) => {
    expect(await htmlToText(html)).toBe("hello")
  })
})

/** Milliseconds of the fastest of three conversions (the least disturbed by other work). */
async function fastest(html: string): Promise<number> {
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    await htmlToText(html, { maxChars: 10_000_000 })
    best = Math.min(best, performance.now() - started)
  }
  return best
}

describe("linear on hostile pages", () => {
  test.each([
    [
      "long entity prefixes without a semicolon",
      (n: number) => `<p>${"&CounterClockwiseContourIntegra".repeat(n / 32)}</p>`,
    ],
    ["ampersands every few characters", (n: number) => `<p>${"ab&amp;cd&".repeat(n / 10)}</p>`],
    [
      "numeric entities with long digit runs",
      (n: number) => `<p>${`&#${"0".repeat(60)}65;`.repeat(n / 65)}</p>`,
    ],
    ["attributes full of >", (n: number) => `<span title="${">".repeat(1000)}">x</span>`.repeat(n / 1000)],
    ["many elements with > in attributes", (n: number) => `<b title="a>b">x</b>`.repeat(n / 20)],
  ])(
    "%s: four times the input takes less than eight times as long",
    async (_name, page) => {
      const n = 500_000
      await fastest(page(n / 4)) // warm up
      // Linear is 4x, quadratic 16x: 8 sits between them with room for noise either way. (Twice
      // the input against 3x read 3.1x once in a loaded full-suite run.) A collection landing in one
      // measurement still moves a ratio, so the best of three tries counts.
      const ratios: number[] = []
      for (let attempt = 0; attempt < 3 && !ratios.some((r) => r < 8); attempt++) {
        const once = await fastest(page(n))
        const four = await fastest(page(4 * n))
        // A floor of 5 ms keeps scheduling noise on a tiny time from passing for a trend.
        ratios.push(four / Math.max(once, 5))
      }
      expect(Math.min(...ratios)).toBeLessThan(8)
    },
    60_000,
  )
})
