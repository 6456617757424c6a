/**
 * Model text and tool output are untrusted (CONTRACT §9): a log line or a prompt-injected answer
 * must never run script in the page. The page is opened with its CSP bypassed, so what is proven
 * here is the sanitizer and the text-only rendering alone; the CSP is a second wall on top.
 */
import { expect, test } from "bun:test"
import { fileFixture } from "../support/console-fixture.ts"
import { waitFor } from "../support/wait.ts"

const { suite, fixture } = fileFixture()

/** Each payload would set `window.__xss` if any of it ran. */
const PAYLOADS = [
  `<img src=x onerror="window.__xss='img'">`,
  `<script>window.__xss='script'</script>`,
  `[click me](javascript:window.__xss='md-link')`,
  `<a href="javascript:window.__xss='a'">raw link</a>`,
  `<a href="JaVaScRiPt:window.__xss='case'">mixed case</a>`,
  `<svg onload="window.__xss='svg'"><circle r="5"/></svg>`,
  `<svg><script>window.__xss='svg-script'</script></svg>`,
  `<iframe srcdoc="<script>parent.__xss='iframe'</script>"></iframe>`,
  `<details open ontoggle="window.__xss='toggle'"><summary>x</summary></details>`,
  `![img](javascript:window.__xss='md-img')`,
]

suite("untrusted text in the console", () => {
  test("payloads in model text and tool output never run script; links are safe", async () => {
    const c = fixture()
    const toolPayload =
      `<img src=x onerror="window.__xss='tool'"><script>window.__xss='tool-script'</script>` +
      `<svg onload="window.__xss='tool-svg'"></svg><a href="javascript:window.__xss='tool-a'">x</a>`
    c.fake.script(
      {
        content: "Looking.",
        toolCalls: [{ id: "call_x", name: "note", arguments: { text: toolPayload } }],
      },
      { content: `Findings:\n\n${PAYLOADS.join("\n\n")}\n\n[docs](https://example.com/runbook)\n` },
    )
    const page = await c.open({ bypassCSP: true })
    await page.getByRole("textbox", { name: "Question" }).fill("show me everything")
    await page.getByRole("button", { name: "Send" }).click()
    const region = page.getByRole("region", { name: "Conversation" })
    await waitFor(async () => (await region.locator("a", { hasText: "docs" }).count()) === 1)

    // Tool output is text: the payload is shown literally, not parsed.
    const card = page.getByRole("article", { name: "note" })
    await card.getByText(/^Output/).click()
    expect(await card.locator(".output pre").textContent()).toContain(`onerror="window.__xss='tool'"`)
    expect(await card.textContent()).toContain("<script>")
    expect(await card.locator("svg, a, img, script").count()).toBe(0)

    // Click every link the model wrote: none may run script (javascript: hrefs are gone).
    for (const link of await region.locator("a").all()) {
      const href = (await link.getAttribute("href")) ?? ""
      expect(href).not.toMatch(/^\s*javascript:/i)
      expect(await link.getAttribute("rel")).toBe("noopener noreferrer")
      if (!href.startsWith("http")) await link.click()
    }
    expect(await region.locator("script, iframe, [onerror], [onload], [ontoggle]").count()).toBe(0)
    await Bun.sleep(300)
    expect(await page.evaluate(() => (globalThis as { __xss?: string }).__xss)).toBeUndefined()
  }, 120_000)
})
