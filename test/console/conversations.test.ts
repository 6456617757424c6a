/**
 * Conversations kept in the browser (issue 22): several of them, renamed, exported as markdown,
 * deleted; and a failed request shown as an error with its code.
 */
import { expect, test } from "bun:test"
import { fileFixture } from "../support/console-fixture.ts"
import { waitFor } from "../support/wait.ts"

const { suite, fixture } = fileFixture()

suite("conversations in the browser", () => {
  test("several conversations, renamed, exported as markdown, deleted", async () => {
    const c = fixture()
    const page = await c.open()
    const nav = page.getByRole("navigation", { name: "Conversations" })
    const region = page.getByRole("region", { name: "Conversation" })
    for (const [question, answer] of [
      ["first question", "First answer."],
      ["second question", "Second answer."],
    ] as const) {
      c.fake.script({ content: answer })
      if (question === "second question") await page.getByRole("button", { name: "New conversation" }).click()
      await page.getByRole("textbox", { name: "Question" }).fill(question)
      await page.keyboard.press("Enter")
      await waitFor(async () => (await region.textContent())?.includes(answer) === true)
    }
    expect(await nav.getByRole("button").allTextContents()).toEqual(
      expect.arrayContaining([
        expect.stringContaining("first question"),
        expect.stringContaining("second question"),
      ]),
    )

    page.once("dialog", (dialog) => void dialog.accept("Checkout outage"))
    await page.getByRole("button", { name: "Rename" }).click()
    await page.getByRole("heading", { name: "Checkout outage" }).waitFor()

    const download = page.waitForEvent("download")
    await page.getByRole("button", { name: "Export markdown" }).click()
    const path = await (await download).path()
    const markdown = await Bun.file(path).text()
    expect(markdown).toContain("# Checkout outage")
    expect(markdown).toContain("second question")
    expect(markdown).toContain("Second answer.")

    // Switching back shows the first conversation; a reload keeps both and the new name.
    await nav.getByRole("button", { name: "first question" }).click()
    await waitFor(async () => (await region.textContent())?.includes("First answer.") === true)
    await page.reload()
    await nav.getByRole("button", { name: "Checkout outage" }).waitFor()

    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByRole("button", { name: "Delete" }).click()
    await waitFor(async () => (await nav.getByRole("button", { name: "first question" }).count()) === 0)
    expect(await nav.getByRole("button", { name: "Checkout outage" }).count()).toBe(1)
  }, 120_000)

  test("a failure is shown as an error with its code: in the stream (5204 rate limit, 1 otherwise) or refused before it (4000)", async () => {
    const c = fixture()
    const page = await c.open()
    const region = page.getByRole("region", { name: "Conversation" })
    // Exactly the requests each failure makes (a 401 is not retried; a 429 is, three times), so no
    // step is left over for the test after this one.
    const failures = [
      { steps: [{ status: 401 }], shown: "Error 1: " },
      {
        steps: Array.from({ length: 4 }, () => ({ status: 429, headers: { "retry-after-ms": "1" } })),
        shown: "Error 5204: ",
      },
    ]
    for (const [i, { steps, shown }] of failures.entries()) {
      c.fake.script(...steps)
      await page.getByRole("textbox", { name: "Question" }).fill(`will fail ${i}`)
      await page.getByRole("button", { name: "Send" }).click()
      const alert = region.getByRole("alert").nth(i)
      await alert.waitFor()
      expect(await alert.textContent()).toStartWith(shown)
      await page.getByRole("button", { name: "Send" }).waitFor()
      expect(c.fake.pending()).toBe(0)
    }

    // A request the server refuses before the stream opens (a history that does not start with
    // the system message: 400 / 4000) is shown the same way, with the body's code and detail.
    await page.evaluate(`{
      const all = JSON.parse(localStorage.getItem("dupin.conversations"))
      for (const conv of all) conv.history = [{ role: "user", content: "not a system message" }]
      localStorage.setItem("dupin.conversations", JSON.stringify(all))
    }`)
    await page.reload()
    const before = c.fake.requests.length
    await page.getByRole("textbox", { name: "Question" }).fill("refused")
    await page.getByRole("button", { name: "Send" }).click()
    const refused = region.getByRole("alert").nth(2)
    await refused.waitFor()
    expect(await refused.textContent()).toMatch(/^Error 4000: .*system/)
    expect(c.fake.requests.length).toBe(before)
  }, 120_000)
})
