/**
 * `bun test/support/console-screenshots.ts`: the README's and docs' pictures of the web console,
 * taken from the real page (a real `dupin serve`, a scripted fake provider, headless chromium):
 * docs/console-light.png (an answer with a tool card), docs/console-dark.png (the same in the dark
 * theme) and docs/console-approval.png (an approval pending).
 */
import type { Page } from "playwright-core"
import { REPO } from "../bench/support/processes.ts"
import { startConsole } from "./console-fixture.ts"
import { waitFor } from "./wait.ts"

const ANSWER = `The pod \`checkout-7d9f\` is restarting because its container is **OOMKilled**:

- memory limit: \`256Mi\`
- peak usage before the kill: \`311Mi\`

Raise the limit to \`512Mi\` or find the leak; the heap grew after the 14:02 deploy.`

async function ask(page: Page, question: string): Promise<void> {
  await page.getByRole("textbox", { name: "Question" }).fill(question)
  await page.getByRole("button", { name: "Send" }).click()
}

const c = await startConsole()
try {
  for (const scheme of ["light", "dark"] as const) {
    c.fake.script(
      {
        content: "Checking the pod's recent events.",
        toolCalls: [
          { id: `call_${scheme}`, name: "note", arguments: { text: "Last State: OOMKilled (exit 137)" } },
        ],
        usage: { prompt_tokens: 2300, completion_tokens: 120 },
      },
      { content: ANSWER, usage: { prompt_tokens: 2600, completion_tokens: 90 } },
    )
    const page = await c.open({ colorScheme: scheme })
    await ask(page, "Why does checkout keep restarting?")
    await waitFor(async () =>
      (await page.getByRole("region", { name: "Conversation" }).textContent())?.includes("deploy"),
    )
    await page
      .getByRole("article", { name: "note" })
      .getByText(/^Output/)
      .click()
    await page.screenshot({ path: `${REPO}/docs/console-${scheme}.png` })
  }
  c.fake.script({
    content: "The deployment is stuck; a restart should clear it.",
    toolCalls: [{ id: "call_restart", name: "restart", arguments: { service: "checkout" } }],
  })
  const page = await c.open()
  await ask(page, "Restart checkout if it is stuck")
  await page.getByRole("button", { name: "Approve" }).waitFor()
  await page.screenshot({ path: `${REPO}/docs/console-approval.png` })
  console.log("wrote docs/console-light.png, docs/console-dark.png, docs/console-approval.png")
} finally {
  await c.stop()
}
