import { describe, expect, test } from "bun:test"
import { tmpdir } from "node:os"
import { waitFor } from "../support/wait.ts"
import { PtySession } from "./pty.ts"
import { approvalToolsetFile, cliEnv, messagesOf, SUBPROCESS_TIMEOUT_MS, terminalTests } from "./support.ts"

const t = terminalTests()

function toolMessages(requestIndex: number): string[] {
  return messagesOf(t.fake.requests[requestIndex]?.body ?? null)
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content))
}

describe("interactive ask on a terminal", () => {
  test(
    "approval y and n with feedback, a follow-up, /context, /tools, /clear, /exit",
    async () => {
      t.fake.script(
        {
          toolCalls: [
            { name: "restart_service", arguments: { service: "nginx" } },
            { name: "restart_service", arguments: { service: "web" } },
          ],
        },
        { content: "Restarted **nginx**; web was left alone." },
        { content: "The database is fine." },
        { content: "Fresh start." },
      )
      t.session = new PtySession(
        ["ask", "restart nginx and web", "--toolset-file", approvalToolsetFile()],
        cliEnv(t.fake),
        tmpdir(),
      )

      await t.session.waitFor("Run restart_service(service=nginx)? [y/N] ")
      t.session.type("y\n")
      await t.session.waitFor("Run restart_service(service=web)? [y/N] ")
      t.session.type("n\n")
      await t.session.waitFor("Feedback for the model (optional, Enter to skip): ")
      t.session.type("use a reload instead\n")
      const answer = await t.session.waitFor("\n> ")
      expect(answer).toContain("Restarted **nginx**; web was left alone.")
      expect(answer).toMatch(/✓ restart_service\(service=nginx\) \d+\.\ds/)
      expect(answer).toMatch(
        /✗ restart_service\(service=web\) \d+\.\ds Tool execution was denied by the user\. User feedback: use a reload instead/,
      )

      const results = toolMessages(1)
      expect(results[0]).toContain("restarted nginx")
      expect(results[1]).toContain(
        "Tool execution was denied by the user. User feedback: use a reload instead",
      )
      expect(results[1]).not.toContain("restarted web")

      t.session.type("and the database?\n")
      expect(await t.session.waitFor("\n> ")).toContain("The database is fine.")
      const followUp = messagesOf(t.fake.requests[2]?.body ?? null)
      expect(followUp.map((m) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "user",
      ])
      expect(String(followUp.at(-1)?.content)).toEndWith("and the database?")

      t.session.type("/context\n")
      expect(await t.session.waitFor("\n> ")).toMatch(
        /Context: [\d,]+ of 128,000 tokens[\s\S]*system prompt\s+[\d,]+/,
      )
      t.session.type("/tools\n")
      // Issue 21 item 7: each tool with its description, and the ones that ask marked.
      expect(await t.session.waitFor("\n> ")).toMatch(
        /test\/ops\s+enabled[\s\S]*! restart_service\s+\S.*\[test\/ops\] \(approval\)/,
      )

      t.session.type("/clear\n")
      await t.session.waitFor("Started a new conversation.\n\n> ")
      t.session.type("hello again\n")
      expect(await t.session.waitFor("\n> ")).toContain("Fresh start.")
      expect(messagesOf(t.fake.requests[3]?.body ?? null).map((m) => m.role)).toEqual(["system", "user"])

      t.session.type("/exit\n")
      expect(await t.session.exited()).toBe(0)
      expect(t.fake.pending()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "Ctrl+C stops the run and returns to the prompt; twice within 2 s exits 130",
    async () => {
      t.fake.script({ hang: true }, { content: "Second try worked." })
      t.session = new PtySession(["ask", "slow question"], cliEnv(t.fake), tmpdir())
      // The model call is in flight once the t.fake provider has recorded it.
      await waitFor(() => t.fake.requests.length > 0, { what: "the model call" })
      t.session.type("\x03")
      await t.session.waitFor("Stopped.")
      await t.session.waitFor("\n> ")
      // Past the 2 s double-Ctrl+C window, so the next Ctrl+C counts as a first one again.
      await Bun.sleep(2100)
      t.session.type("try again\n")
      expect(await t.session.waitFor("\n> ")).toContain("Second try worked.")
      t.session.type("\x03")
      await t.session.waitFor("press Ctrl+C again")
      t.session.type("\x03")
      expect(await t.session.exited()).toBe(130)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "Ctrl+C at an approval question denies the call, stops the run and returns to the prompt",
    async () => {
      t.fake.script({ toolCalls: [{ name: "restart_service", arguments: { service: "nginx" } }] })
      t.session = new PtySession(
        ["ask", "restart nginx", "--toolset-file", approvalToolsetFile()],
        cliEnv(t.fake),
        tmpdir(),
      )
      await t.session.waitFor("Run restart_service(service=nginx)? [y/N] ")
      t.session.type("\x03")
      await t.session.waitFor("Stopped.")
      await t.session.waitFor("\n> ")
      // The run ended without a second model call, and nothing was restarted.
      expect(t.fake.requests).toHaveLength(1)
      expect(t.session.output).toContain("✗ restart_service")
      expect(t.session.output).not.toContain("✓ restart_service")
      t.session.type("/exit\n")
      expect(await t.session.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "end of input (Ctrl+D) at the prompt exits 0",
    async () => {
      t.fake.script({ content: "Answer." })
      t.session = new PtySession(["ask", "q"], cliEnv(t.fake), tmpdir())
      await t.session.waitFor("\n> ")
      t.session.type("\x04")
      expect(await t.session.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
