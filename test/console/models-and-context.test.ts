/**
 * The console's model picker, context meter and context notices (issue 22) against a server with
 * two models in `modelList`, one with a small window: the picker lists what `GET /api/model`
 * names and the chosen one answers; the meter shows the tokens against that model's window; a tool
 * output cut to fit and a compacted history are announced in the transcript.
 */
import { expect, test } from "bun:test"
import type { Page } from "playwright-core"
import { fileFixture } from "../support/console-fixture.ts"
import { waitFor } from "../support/wait.ts"

const SMALL_WINDOW = 16_000

const { suite, fixture } = fileFixture({
  modelYaml: (url) => `model: big
modelList:
  big: { model: openai/gpt-4o, api_key: test-key, api_base: "${url}" }
  small:
    model: openai/local-small-instruct
    api_key: test-key
    api_base: "${url}"
    context_window: ${SMALL_WINDOW}
    max_output_tokens: 1000`,
})

async function ask(page: Page, question: string): Promise<void> {
  await page.getByRole("textbox", { name: "Question" }).fill(question)
  await page.getByRole("button", { name: "Send" }).click()
}

async function chooseSmall(page: Page): Promise<void> {
  const picker = page.getByRole("combobox", { name: "Model" })
  await waitFor(async () => (await picker.locator("option").allTextContents()).join(",") === "big,small")
  await picker.selectOption("small")
}

function transcript(page: Page) {
  return page.getByRole("region", { name: "Conversation" })
}

suite("models and the context window in the console", () => {
  test("the picker lists the API's models and the chosen one answers; the meter shows its window", async () => {
    const c = fixture()
    const page = await c.open()
    await chooseSmall(page)
    c.fake.script({ content: "Small model here." })
    await ask(page, "which model?")
    await waitFor(async () => (await transcript(page).textContent())?.includes("Small model here.") === true)
    expect(c.fake.requests.at(-1)?.body?.model).toBe("local-small-instruct")

    const meter = page.getByRole("meter", { name: "Context window" })
    expect(await meter.getAttribute("max")).toBe(String(SMALL_WINDOW))
    const used = Number(await meter.getAttribute("value"))
    expect(used).toBeGreaterThan(0)
    expect(await page.getByText(/^Context \d+%/).textContent()).toContain(
      `Context ${Math.round((used / SMALL_WINDOW) * 100)}%`,
    )
    expect(await page.getByText(`/ ${SMALL_WINDOW.toLocaleString("en-US")} tokens`).count()).toBe(1)
  }, 60_000)

  test("a tool output cut to fit and a compacted history are announced", async () => {
    const c = fixture()
    const page = await c.open()
    await chooseSmall(page)
    c.fake.script(
      { toolCalls: [{ id: "call_spew", name: "spew", arguments: { count: "20000" } }] },
      { content: "Counted." },
    )
    await ask(page, "count")
    const region = transcript(page)
    await waitFor(async () => (await region.textContent())?.includes("Counted.") === true)
    const card = page.getByRole("article", { name: "spew" })
    expect(await card.getByText(/^Output .* · truncated$/).count()).toBe(1)
    expect(await region.getByRole("note").allTextContents()).toContain(
      "Output of spew was truncated to fit the context window.",
    )

    // A follow-up too big for what is left of the window: the history is summarised first.
    c.fake.script(
      { content: "<analysis>counted numbers</analysis><summary>The user counted to 20000.</summary>" },
      { content: "After compaction." },
    )
    await ask(page, `and now? ${"please look again at every number ".repeat(1700)}`)
    await waitFor(async () => (await region.textContent())?.includes("After compaction.") === true)
    const notes = await region.getByRole("note").allTextContents()
    expect(notes.some((n) => n.startsWith("Compacting the conversation history"))).toBe(true)
    expect(notes.some((n) => /^Conversation compacted: \d+ → \d+ tokens\.$/.test(n))).toBe(true)
  }, 60_000)
})
