/**
 * The web console (issue 22, CONTRACT §9) in headless chromium against a real `dupin serve` and a
 * fake provider: elements are found by the accessible names the contract fixes. One browser for
 * the file; each test opens its own context (own localStorage) unless it says otherwise.
 */
import { expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { fileFixture, NAP_SECONDS } from "../support/console-fixture.ts"
import type { RecordedRequest } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"

const { suite, fixture } = fileFixture()

async function ask(page: Page, question: string): Promise<void> {
  await page.getByRole("textbox", { name: "Question" }).fill(question)
  await page.getByRole("button", { name: "Send" }).click()
}

function conversation(page: Page) {
  return page.getByRole("region", { name: "Conversation" })
}

/** The text of every message the provider last received, to see what the model was told. */
function lastMessages(request: RecordedRequest | undefined): string {
  return JSON.stringify(request?.body?.messages ?? [])
}

suite("web console", () => {
  test("loads with the contract's controls, headers that forbid inline script and framing, and the model list", async () => {
    const c = fixture()
    const res = await fetch(`${c.url}/`)
    expect(res.status).toBe(200)
    const csp = res.headers.get("content-security-policy") ?? ""
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain("unsafe-inline")
    expect(csp).not.toMatch(/https?:/)
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
    expect(res.headers.get("referrer-policy")).toBe("no-referrer")
    // The page's script and style come from the binary under /console/, with the same headers.
    const assets = [...(await res.text()).matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((m) => m[1])
    expect(assets.length).toBe(2)
    for (const asset of assets) {
      const a = await fetch(`${c.url}${asset}`)
      expect(a.status).toBe(200)
      expect(a.headers.get("content-security-policy")).toBe(csp)
      expect(a.headers.get("x-content-type-options")).toBe("nosniff")
    }
    const page = await c.open()
    await expect(page.getByRole("textbox", { name: "Question" }).isVisible()).resolves.toBe(true)
    await expect(page.getByRole("button", { name: "Send" }).isVisible()).resolves.toBe(true)
    await expect(page.getByRole("button", { name: "New conversation" }).isVisible()).resolves.toBe(true)
    await expect(conversation(page).isVisible()).resolves.toBe(true)
    const model = page.getByRole("combobox", { name: "Model" })
    await waitFor(async () => (await model.locator("option").allTextContents()).includes("openai/gpt-4o"))
  }, 30_000)

  test("the answer streams in as the model writes it, and Esc stops a request", async () => {
    const c = fixture()
    const gate = Promise.withResolvers<void>()
    c.fake.script({
      content: "Checking **first** then the rest arrives",
      hangAfterChunks: 2,
      resumeWhen: gate.promise,
    })
    const page = await c.open()
    await ask(page, "why is the pod crashing?")
    const region = conversation(page)
    await waitFor(async () => (await region.textContent())?.includes("Checking") === true)
    expect(await region.textContent()).not.toContain("arrives")
    gate.resolve()
    await waitFor(async () => (await region.textContent())?.includes("the rest arrives") === true)
    // Markdown rendered: the bold is an element, not asterisks.
    expect(await region.locator("strong", { hasText: "first" }).count()).toBe(1)

    c.fake.script({ content: "never finished answer", hangAfterChunks: 1 })
    await ask(page, "and then?")
    await waitFor(async () => (await region.textContent())?.includes("never") === true)
    await page.keyboard.press("Escape")
    await waitFor(async () => (await region.textContent())?.includes("Stopped.") === true)
    await expect(page.getByRole("button", { name: "Send" }).isVisible()).resolves.toBe(true)
  }, 30_000)

  test("a tool call is a card named by the tool with its arguments, status and output; reload keeps the conversation", async () => {
    const c = fixture()
    c.fake.script(
      { toolCalls: [{ id: "call_note", name: "note", arguments: { text: "disk-is-full" } }] },
      { content: "The disk is full." },
    )
    const page = await c.open()
    await ask(page, "check the node")
    const card = page.getByRole("article", { name: "note" })
    await waitFor(async () => (await card.textContent())?.includes("done") === true)
    expect(await card.textContent()).toContain('"text": "disk-is-full"')
    // Its running time, and the output collapsed until asked for.
    expect(await card.locator(".elapsed").textContent()).toMatch(/^\d+\.\d s$/)
    expect(await card.locator("details.output:not([open])").count()).toBe(1)
    await card.getByText(/^Output/).click()
    expect(await card.locator("details.output[open]").count()).toBe(1)
    await waitFor(
      async () => (await card.locator("pre").last().textContent())?.includes("disk-is-full") === true,
    )
    await waitFor(
      async () => (await conversation(page).textContent())?.includes("The disk is full.") === true,
    )

    await page.reload()
    const region = conversation(page)
    await waitFor(async () => (await region.textContent())?.includes("The disk is full.") === true)
    expect(await region.textContent()).toContain("check the node")
    expect(await page.getByRole("article", { name: "note" }).count()).toBe(1)

    // A follow-up continues the same conversation: the provider sees the earlier exchange.
    c.fake.script({ content: "Delete old logs." })
    await ask(page, "what now?")
    await waitFor(async () => (await region.textContent())?.includes("Delete old logs.") === true)
    const sent = lastMessages(c.fake.requests.at(-1))
    expect(sent).toContain("check the node")
    expect(sent).toContain("disk-is-full")
  }, 30_000)

  test("an approved call runs; a denied one does not, and the model gets the feedback", async () => {
    const c = fixture()
    c.fake.script(
      { toolCalls: [{ id: "call_web", name: "restart", arguments: { service: "web" } }] },
      { content: "Restarted web." },
    )
    const page = await c.open()
    await ask(page, "restart web")
    const card = page.getByRole("article", { name: "restart" })
    await card.getByRole("button", { name: "Approve" }).waitFor()
    // The call it would run, in place: its command and arguments.
    expect(await card.textContent()).toContain("echo restarted web")
    expect(await card.textContent()).toContain('"service": "web"')
    await card.getByRole("button", { name: "Approve" }).click()
    await waitFor(async () => (await conversation(page).textContent())?.includes("Restarted web.") === true)
    // It ran: its side effect is on disk, the model was told its output, and the card shows it.
    expect(await Bun.file(join(c.dir, "restarted-web")).text()).toBe("restarted web\n")
    expect(lastMessages(c.fake.requests.at(-1))).toContain("restarted web")
    await card.getByText(/^Output/).click()
    expect(await card.locator(".output pre").textContent()).toContain("restarted web")

    let told = ""
    c.fake.script(
      { toolCalls: [{ id: "call_db", name: "restart", arguments: { service: "db" } }] },
      (request) => {
        told = lastMessages(request)
        return { content: "Understood, not restarting db." }
      },
    )
    await page.getByRole("button", { name: "New conversation" }).click()
    await ask(page, "restart db")
    const dbCard = page.getByRole("article", { name: "restart" })
    await dbCard.getByRole("textbox", { name: "Feedback" }).fill("not during business hours")
    await dbCard.getByRole("button", { name: "Deny" }).click()
    await waitFor(
      async () => (await conversation(page).textContent())?.includes("not restarting db") === true,
    )
    expect(told).toContain("denied by the user")
    expect(told).toContain("not during business hours")
    expect(told).not.toContain("restarted db")
    expect(existsSync(join(c.dir, "restarted-db"))).toBe(false)
    // New conversation started over: nothing of the first one was sent.
    expect(told).not.toContain("restart web")
    expect(await conversation(page).textContent()).not.toContain("Restarted web.")
  }, 30_000)

  test("Stop mid-tool ends the request and leaves no tool process", async () => {
    const c = fixture()
    // No step after the call: the stopped request never asks the model again.
    c.fake.script({ toolCalls: [{ id: "call_nap", name: "nap", arguments: {} }] })
    const page = await c.open()
    await ask(page, "wait a bit")
    const card = page.getByRole("article", { name: "nap" })
    await waitFor(async () => (await card.textContent())?.includes("running") === true)
    await waitFor(() => napProcesses().length > 0, { what: "the nap tool to start" })
    await page.getByRole("button", { name: "Stop" }).click()
    await waitFor(async () => (await card.textContent())?.includes("stopped") === true)
    await waitFor(() => napProcesses().length === 0, { what: "the nap tool to be killed" })

    // Esc does the same, from the keyboard.
    c.fake.script({ toolCalls: [{ id: "call_nap2", name: "nap", arguments: {} }] })
    await page.getByRole("button", { name: "New conversation" }).click()
    await ask(page, "wait again")
    const again = page.getByRole("article", { name: "nap" })
    await waitFor(async () => (await again.textContent())?.includes("running") === true)
    await waitFor(() => napProcesses().length > 0, { what: "the nap tool to start again" })
    await page.keyboard.press("Escape")
    await waitFor(async () => (await again.textContent())?.includes("stopped") === true)
    await waitFor(() => napProcesses().length === 0, { what: "the nap tool to be killed after Esc" })
    expect(await conversation(page).textContent()).toContain("Stopped.")
    expect(c.fake.pending()).toBe(0)
  }, 60_000)

  test("the question box is usable before the script has loaded; what was typed there is kept", async () => {
    const c = fixture()
    c.fake.script({ content: "The early question got its answer." })
    const context = await c.browser.newContext()
    try {
      const page = await context.newPage()
      // The page's script is held back, as on a slow link: the box must already be there.
      const release = Promise.withResolvers<void>()
      await page.route("**/console/*.js", async (route) => {
        await release.promise
        await route.continue()
      })
      await page.goto(c.url, { waitUntil: "commit" })
      const box = page.getByRole("textbox", { name: "Question" })
      await box.click()
      await page.keyboard.type("why is checkout slow?")
      expect(await page.getByRole("button", { name: "New conversation" }).count()).toBe(0)
      release.resolve()
      await page.getByRole("button", { name: "New conversation" }).waitFor()
      // One box, the app's, with the text and the focus; Enter sends it.
      expect(await page.getByRole("textbox", { name: "Question" }).count()).toBe(1)
      expect(await box.inputValue()).toBe("why is checkout slow?")
      await page.keyboard.press("Enter")
      const region = conversation(page)
      await waitFor(
        async () => (await region.textContent())?.includes("early question got its answer") === true,
      )
      expect(await region.textContent()).toContain("why is checkout slow?")
      expect(await box.inputValue()).toBe("")
    } finally {
      await context.close()
    }
  }, 30_000)

  test("Enter sends, Shift+Enter is a new line", async () => {
    const c = fixture()
    const page = await c.open()
    const box = page.getByRole("textbox", { name: "Question" })
    const before = c.fake.requests.length
    await box.click()
    await page.keyboard.type("first line")
    await page.keyboard.press("Shift+Enter")
    await page.keyboard.type("second line")
    expect(await box.inputValue()).toBe("first line\nsecond line")
    expect(c.fake.requests.length).toBe(before)
    c.fake.script({ content: "Two lines received." })
    await page.keyboard.press("Enter")
    await waitFor(
      async () => (await conversation(page).textContent())?.includes("Two lines received.") === true,
    )
    expect(await box.inputValue()).toBe("")
    expect(lastMessages(c.fake.requests.at(-1))).toContain("first line\\nsecond line")
  }, 30_000)

  test("light and dark themes follow the system", async () => {
    const c = fixture()
    const background = async (scheme: "light" | "dark") => {
      const page = await c.open({ colorScheme: scheme })
      await page.getByRole("textbox", { name: "Question" }).waitFor()
      // A string runs in the page (DOM types are not this file's).
      return await page.evaluate("getComputedStyle(document.body).backgroundColor")
    }
    expect(await background("light")).toBe("rgb(255, 255, 255)")
    expect(await background("dark")).toBe("rgb(22, 24, 28)")
  }, 30_000)

  test("long output is paged", async () => {
    const c = fixture()
    c.fake.script(
      { toolCalls: [{ id: "call_spew", name: "spew", arguments: { count: "450" } }] },
      { content: "Counted." },
    )
    const page = await c.open()
    await ask(page, "count")
    const card = page.getByRole("article", { name: "spew" })
    await waitFor(async () => (await conversation(page).textContent())?.includes("Counted.") === true)
    await card.getByText("Output (450 lines)").click()
    const shown = async () => (await card.locator(".output pre").textContent())?.split("\n") ?? []
    expect((await shown()).length).toBe(200)
    await card.getByRole("button", { name: "Show more (250 lines left)" }).click()
    expect((await shown()).length).toBe(400)
    await card.getByRole("button", { name: "Show more (50 lines left)" }).click()
    expect((await shown()).filter(Boolean).at(-1)).toBe("450")
    expect(await card.getByRole("button", { name: /^Show more/ }).count()).toBe(0)
  }, 30_000)
})

/** Live processes running the nap tool's sleep (its argument is unique to this fixture). */
function napProcesses(): string[] {
  const ps = Bun.spawnSync(["ps", "-eo", "pid=,stat=,args="])
  return ps.stdout
    .toString()
    .split("\n")
    .filter((line) => line.includes(`sleep ${NAP_SECONDS}`) && !/^\s*\d+\s+Z/.test(line))
}
