/**
 * The console with a token configured (CONTRACT §9: the page asks for it on a 401 and keeps it in
 * sessionStorage only), without alerts (the investigations view says so), and with the console
 * turned off (`GET /` is 404).
 */
import { afterEach, describe, expect, test } from "bun:test"
import { type ConsoleFixture, chromiumMissing, startConsole } from "../support/console-fixture.ts"
import { waitFor } from "../support/wait.ts"

const missing = chromiumMissing()
if (missing) console.warn(missing)

let c: ConsoleFixture | undefined
afterEach(async () => {
  await c?.stop()
  c = undefined
}, 30_000)

describe.skipIf(Boolean(missing))("a server with a token", () => {
  test("the page loads without it, asks for it on 401, keeps it in sessionStorage only, then works", async () => {
    const token = "console-test-token-1234"
    c = await startConsole({ token })
    const page = await c.open()
    const box = page.getByLabel("API token", { exact: true })
    await box.waitFor()
    expect(await box.getAttribute("type")).toBe("password")
    await box.fill(token)
    await page.getByRole("button", { name: "Use token" }).click()
    const model = page.getByRole("combobox", { name: "Model" })
    await waitFor(async () => (await model.locator("option").allTextContents()).includes("openai/gpt-4o"))

    c.fake.script({ content: "Authenticated answer." })
    await page.getByRole("textbox", { name: "Question" }).fill("hello")
    await page.getByRole("button", { name: "Send" }).click()
    const region = page.getByRole("region", { name: "Conversation" })
    await waitFor(async () => (await region.textContent())?.includes("Authenticated answer.") === true)
    const stored = await page.evaluate(() => ({
      session: JSON.stringify({ ...sessionStorage }),
      local: JSON.stringify({ ...localStorage }),
    }))
    expect(stored.session).toContain(token)
    expect(stored.local).not.toContain(token)
  }, 120_000)
})

describe.skipIf(Boolean(missing))("a server with a token, given a wrong one", () => {
  test("the prompt comes back saying the token was not accepted; the right one then works", async () => {
    const token = "console-test-token-5678"
    c = await startConsole({ token })
    const page = await c.open()
    const box = page.getByLabel("API token", { exact: true })
    await box.waitFor()
    expect(await page.getByRole("alert").count()).toBe(0)
    await box.fill("not-the-token")
    await page.getByRole("button", { name: "Use token" }).click()
    const refused = page.getByRole("dialog", { name: "Sign in" }).getByRole("alert")
    await refused.waitFor()
    expect(await refused.textContent()).toContain("did not accept that token")
    await page.getByLabel("API token", { exact: true }).fill(token)
    await page.getByRole("button", { name: "Use token" }).click()
    const model = page.getByRole("combobox", { name: "Model" })
    await waitFor(async () => (await model.locator("option").allTextContents()).includes("openai/gpt-4o"))
    expect(await page.getByRole("dialog", { name: "Sign in" }).count()).toBe(0)
  }, 120_000)
})

describe.skipIf(Boolean(missing))("a server without alerts", () => {
  test("the Investigations view says alert investigations are not enabled", async () => {
    c = await startConsole()
    const page = await c.open()
    await page.getByRole("button", { name: "Investigations" }).click()
    const view = page.getByRole("region", { name: "Investigations" })
    await waitFor(async () => (await view.textContent())?.includes("not enabled") === true)
    await page.getByRole("button", { name: "Chat" }).click()
    await page.getByRole("textbox", { name: "Question" }).waitFor()
  }, 120_000)
})

describe("the console turned off", () => {
  test("serve --no-console: GET / and the assets are 404, the API still answers", async () => {
    c = await startConsole({ serveArgs: ["--no-console"], launchBrowser: false })
    expect((await fetch(`${c.url}/`)).status).toBe(404)
    expect((await fetch(`${c.url}/console/main.js`)).status).toBe(404)
    expect((await fetch(`${c.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${c.url}/api/model`)).status).toBe(200)
  }, 90_000)

  test("with a token configured too: GET / is 404 without the token, not 401", async () => {
    c = await startConsole({
      serveArgs: ["--no-console"],
      token: "off-test-token-1234",
      launchBrowser: false,
    })
    expect((await fetch(`${c.url}/`)).status).toBe(404)
    expect((await fetch(`${c.url}/console/main.js`)).status).toBe(404)
    expect((await fetch(`${c.url}/api/model`)).status).toBe(401)
  }, 90_000)

  test("server.console: false in the config file does the same", async () => {
    c = await startConsole({ serverYaml: "console: false", launchBrowser: false })
    expect((await fetch(`${c.url}/`)).status).toBe(404)
  }, 90_000)
})
