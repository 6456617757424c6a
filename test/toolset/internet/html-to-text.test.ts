import { describe, expect, test } from "bun:test"
import { htmlToText } from "../../../src/toolset/internet/html-to-text.ts"
import { worstEventLoopGap } from "../../support/event-loop-gap.ts"

describe("htmlToText", () => {
  test("headings, links, lists, code, tables, images and entities become markdown-ish text", async () => {
    const html = `<!doctype html><html><head><title>A &amp; B</title><style>p{}</style></head><body>
      <h1>Top</h1><p>Read <a href="/x?a=1&amp;b=2">the <b>docs</b></a> &mdash; <code>kubectl get</code>.</p>
      <ol><li>one<li>two</ol><ul><li>a<ul><li>nested</li></ul></li></ul>
      <table><tr><th>k</th><td>v</td></tr></table><img alt="diagram"><hr>
      <pre>  indented
    code &lt;x&gt;</pre><a href="javascript:alert(1)">js</a><a href="#top">anchor</a></body></html>`
    const text = await htmlToText(html, { baseUrl: "https://docs.test/guide/" })
    expect(text).toStartWith(
      "Title: A & B\n\n# Top\n\nRead [the docs](https://docs.test/x?a=1&b=2) — `kubectl get`.",
    )
    expect(text).toContain("1. one\n2. two")
    expect(text).toContain("- a\n  - nested")
    expect(text).toContain(" | k | v")
    expect(text).toContain("[image: diagram]")
    expect(text).toContain("---")
    expect(text).toContain("```\n  indented\n    code <x>\n```")
    expect(text).toContain("js")
    expect(text).not.toContain("javascript:")
    expect(text).not.toContain("p{}")
    expect(text).not.toMatch(/\n\n\n/)
  })

  test("an unclosed script hides the rest instead of leaking code into the text", async () => {
    expect(await htmlToText("<p>visible</p><script>var token = 1; <p>not text")).toBe("visible")
  })

  test("a page without </head> still shows its body", async () => {
    expect(await htmlToText("<html><head><title>T</title><body><p>shown")).toBe("Title: T\n\nshown")
  })

  test("an abort stops the conversion", async () => {
    const abort = new AbortController()
    const running = htmlToText("<p>x</p>".repeat(250_000), { signal: abort.signal })
    abort.abort(new Error("timed out"))
    await expect(running).rejects.toThrow("timed out")
  })
})

describe("htmlToText on hostile pages", () => {
  test.each([
    ["an unclosed tag name", `<a${"b".repeat(2_000_000)}`],
    ["unclosed tags", "<a x=".repeat(400_000)],
    ["unclosed comments", "<!--".repeat(500_000)],
    ["unclosed scripts", "<script>".repeat(250_000)],
    ["entities", "&amp;&#x41;&bogus;".repeat(100_000)],
    ["spaces in pre", `<pre>${" ".repeat(2_000_000)}x`],
    ["many elements", "<b>x</b>".repeat(250_000)],
  ])("%s (2 MB) convert in bounded time without holding the event loop", async (_name, html) => {
    const started = performance.now()
    const { worstGapMs } = await worstEventLoopGap(() => htmlToText(html))
    expect(performance.now() - started).toBeLessThan(3000)
    // The 100 ms promise itself is measured against the real server in test/reliability/event-loop.test.ts.
    expect(worstGapMs).toBeLessThan(250)
  })
})

test("entities split across the pieces of a long text node are decoded whole", async () => {
  const text = await htmlToText(`<p>${"x&amp;".repeat(20_000)}</p>`)
  expect(text).toBe("x&".repeat(20_000))
})
