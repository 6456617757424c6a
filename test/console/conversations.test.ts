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

  test("a provider failure is shown as an error with its code", async () => {
    const c = fixture()
    c.fake.script({ status: 401 }, { status: 401 }, { status: 401 })
    const page = await c.open()
    await page.getByRole("textbox", { name: "Question" }).fill("will fail")
    await page.getByRole("button", { name: "Send" }).click()
    const alert = page.getByRole("region", { name: "Conversation" }).getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/Error \d+/)
    await page.getByRole("button", { name: "Send" }).waitFor()
  }, 120_000)
})
