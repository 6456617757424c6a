/**
 * The console's investigations view (issue 23, CONTRACT §10) in headless chromium against a real
 * `dupin serve` with alerts on (SQLite in the fixture's directory) and a fake provider. Alert
 * annotations come from whoever can reach Alertmanager: the page is opened with its CSP bypassed,
 * so what keeps the payload from running is the text-only rendering alone.
 */
import { expect, test } from "bun:test"
import { alertmanagerBody } from "../alerts/support.ts"
import { fileFixture } from "../support/console-fixture.ts"
import { waitFor } from "../support/wait.ts"

const { suite, fixture } = fileFixture({
  // The sink is a path the fake provider does not serve: each delivery fails with a 404 and is retried.
  configYaml: (dir, providerUrl) =>
    `alerts:\n  enabled: true\n  max_concurrent: 1\n  sinks: [{ type: webhook, url: ${JSON.stringify(`${providerUrl}/hook`)} }]\n` +
    `store: { path: ${JSON.stringify(`${dir}/dupin.db`)} }`,
})

const PAYLOAD = `<img src=x onerror="window.__xss='annotation'"><script>window.__xss='script'</script>`

suite("investigations in the console", () => {
  test("an alert's investigation is listed, and its detail shows the analysis, the tool card and the untrusted text as text", async () => {
    const c = fixture()
    c.fake.script(
      { toolCalls: [{ id: "call_note", name: "note", arguments: { text: "disk-98-percent" } }] },
      { content: `The disk is **full**.\n\n<img src=x onerror="window.__xss='analysis'">` },
    )
    const page = await c.open({ bypassCSP: true })
    const res = await fetch(`${c.url}/api/alerts/alertmanager`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(
        alertmanagerBody([
          {
            fingerprint: "fp-console",
            labels: { alertname: "DiskFull", severity: "critical", instance: "host-7" },
            annotations: { summary: "Disk almost full", description: PAYLOAD },
          },
        ]),
      ),
    })
    expect(res.status).toBe(202)

    await page.getByRole("button", { name: "Investigations" }).click()
    const list = page.getByRole("region", { name: "Investigations" })
    const item = list.getByRole("button", { name: /DiskFull/ })
    await item.waitFor()
    expect(await item.textContent()).toContain("critical")
    // The list refreshes by itself while the investigation is queued or running.
    await waitFor(async () => (await item.textContent())?.includes("done") === true, {
      timeoutMs: 45_000,
      what: "the list to show the investigation done",
    })
    await item.click()
    const detail = page.getByRole("region", { name: "Investigation detail" })
    await waitFor(async () => (await detail.textContent())?.includes("The disk is full.") === true)
    expect(await detail.locator("strong", { hasText: "full" }).count()).toBe(1)
    const card = detail.getByRole("article", { name: "note" })
    expect(await card.textContent()).toContain('"text": "disk-98-percent"')
    await card.getByText(/^Output/).click()
    expect(await card.locator(".output pre").textContent()).toContain("disk-98-percent")
    // The annotation is shown literally, not parsed.
    const annotations = detail.getByRole("definition").filter({ hasText: "onerror" })
    expect(await annotations.textContent()).toBe(PAYLOAD)
    expect(await detail.textContent()).toContain("host-7")
    expect(await detail.locator("script, [onerror], [onload]").count()).toBe(0)

    // The status filter asks the server: no failed investigation here.
    await list.getByRole("combobox", { name: "Status" }).selectOption("failed")
    await list.getByText("No investigations yet.").waitFor()
    await list.getByRole("combobox", { name: "Status" }).selectOption("done")
    await item.waitFor()

    await Bun.sleep(300)
    expect(await page.evaluate(() => (globalThis as { __xss?: string }).__xss)).toBeUndefined()
    // Back to the chat.
    await page.getByRole("button", { name: "Chat" }).click()
    await page.getByRole("textbox", { name: "Question" }).waitFor()
  }, 90_000)

  test("a failed investigation shows its error; a finished one shows its deliveries", async () => {
    const c = fixture()
    c.fake.script({
      status: 400,
      body: { error: { message: "model refused: bad request", type: "invalid" } },
    })
    const page = await c.open()
    const res = await fetch(`${c.url}/api/alerts/alertmanager`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(
        alertmanagerBody([
          { fingerprint: "fp-fail", labels: { alertname: "PodCrashLooping", severity: "warning" } },
        ]),
      ),
    })
    expect(res.status).toBe(202)
    await page.getByRole("button", { name: "Investigations" }).click()
    const list = page.getByRole("region", { name: "Investigations" })
    const failed = list.getByRole("button", { name: /PodCrashLooping/ })
    await waitFor(async () => (await failed.textContent())?.includes("failed") === true, {
      timeoutMs: 45_000,
      what: "the list to show the investigation failed",
    })
    // Newest first.
    expect(await list.getByRole("listitem").first().textContent()).toContain("PodCrashLooping")
    await failed.click()
    const detail = page.getByRole("region", { name: "Investigation detail" })
    await detail.getByRole("alert").waitFor()
    expect(await detail.getByRole("alert").textContent()).toContain("Failed")

    await list.getByRole("button", { name: /DiskFull/ }).click()
    await waitFor(async () => (await detail.textContent())?.includes("Deliveries") === true)
    expect(await detail.textContent()).toContain("not delivered")
    expect(await detail.textContent()).toContain("HTTP 404")
  }, 90_000)
})
