import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { tmpdir } from "node:os"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"
import { PtySession } from "./pty.ts"
import { approvalToolsetFile, cliEnv, messagesOf, SUBPROCESS_TIMEOUT_MS } from "./support.ts"

let fake: FakeProvider
let session: PtySession | undefined
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  session?.proc.kill()
  await fake.stop()
})

function toolMessages(requestIndex: number): string[] {
  return messagesOf(fake.requests[requestIndex]?.body ?? null)
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content))
}

describe("interactive ask on a terminal", () => {
  test(
    "approval y and n with feedback, a follow-up, /context, /tools, /clear, /exit",
    async () => {
      fake.script(
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
      session = new PtySession(
        ["ask", "restart nginx and web", "--toolset-file", approvalToolsetFile()],
        cliEnv(fake),
        tmpdir(),
      )

      await session.waitFor("Run restart_service(service=nginx)? [y/N] ")
      session.type("y\n")
      await session.waitFor("Run restart_service(service=web)? [y/N] ")
      session.type("n\n")
      await session.waitFor("Feedback for the model (optional, Enter to skip): ")
      session.type("use a reload instead\n")
      const answer = await session.waitFor("\n> ")
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

      session.type("and the database?\n")
      expect(await session.waitFor("\n> ")).toContain("The database is fine.")
      const followUp = messagesOf(fake.requests[2]?.body ?? null)
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

      session.type("/context\n")
      expect(await session.waitFor("\n> ")).toMatch(
        /Context: [\d,]+ of 128,000 tokens[\s\S]*system prompt\s+[\d,]+/,
      )
      session.type("/tools\n")
      // Issue 21 item 7: each tool with its description, and the ones that ask marked.
      expect(await session.waitFor("\n> ")).toMatch(
        /test\/ops\s+enabled[\s\S]*! restart_service\s+\S.*\[test\/ops\] \(approval\)/,
      )

      session.type("/clear\n")
      await session.waitFor("Started a new conversation.\n\n> ")
      session.type("hello again\n")
      expect(await session.waitFor("\n> ")).toContain("Fresh start.")
      expect(messagesOf(fake.requests[3]?.body ?? null).map((m) => m.role)).toEqual(["system", "user"])

      session.type("/exit\n")
      expect(await session.exited()).toBe(0)
      expect(fake.pending()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "Ctrl+C stops the run and returns to the prompt; twice within 2 s exits 130",
    async () => {
      fake.script({ hang: true }, { content: "Second try worked." })
      session = new PtySession(["ask", "slow question"], cliEnv(fake), tmpdir())
      // The model call is in flight once the fake provider has recorded it.
      await waitFor(() => fake.requests.length > 0, { what: "the model call" })
      session.type("\x03")
      await session.waitFor("Stopped.")
      await session.waitFor("\n> ")
      // Past the 2 s double-Ctrl+C window, so the next Ctrl+C counts as a first one again.
      await Bun.sleep(2100)
      session.type("try again\n")
      expect(await session.waitFor("\n> ")).toContain("Second try worked.")
      session.type("\x03")
      await session.waitFor("press Ctrl+C again")
      session.type("\x03")
      expect(await session.exited()).toBe(130)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "Ctrl+C at an approval question denies the call, stops the run and returns to the prompt",
    async () => {
      fake.script({ toolCalls: [{ name: "restart_service", arguments: { service: "nginx" } }] })
      session = new PtySession(
        ["ask", "restart nginx", "--toolset-file", approvalToolsetFile()],
        cliEnv(fake),
        tmpdir(),
      )
      await session.waitFor("Run restart_service(service=nginx)? [y/N] ")
      session.type("\x03")
      await session.waitFor("Stopped.")
      await session.waitFor("\n> ")
      // The run ended without a second model call, and nothing was restarted.
      expect(fake.requests).toHaveLength(1)
      expect(session.output).toContain("✗ restart_service")
      expect(session.output).not.toContain("✓ restart_service")
      session.type("/exit\n")
      expect(await session.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "end of input (Ctrl+D) at the prompt exits 0",
    async () => {
      fake.script({ content: "Answer." })
      session = new PtySession(["ask", "q"], cliEnv(fake), tmpdir())
      await session.waitFor("\n> ")
      session.type("\x04")
      expect(await session.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
