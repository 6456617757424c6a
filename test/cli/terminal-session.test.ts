// Issue 21 item 7, through the real `dupin ask` (a subprocess, on a pseudo-terminal where the
// behaviour is a terminal's): what the person at the terminal is told.
import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { tmpdir } from "node:os"
import { visible } from "../../src/cli/render/style.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"
import { PtySession } from "./pty.ts"
import { approvalToolsetFile, cliEnv, runCli, SUBPROCESS_TIMEOUT_MS, tempFile } from "./support.ts"

let fake: FakeProvider
let session: PtySession | undefined
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  session?.proc.kill()
  session = undefined
  await fake.stop()
})

/** A toolset whose prerequisite fails (its variable is unset), and one slow tool. */
function teamToolsets(): string {
  return tempFile(
    "team.yaml",
    `toolsets:
  team/needs-var:
    description: d
    prerequisites:
      - env: [DUPIN_TEST_NOT_SET]
    tools:
      - { name: team_echo, description: d, command: echo hi }
  team/slow:
    description: d
    tools:
      - { name: slow_check, description: Waits, command: "sleep 30" }
`,
  )
}

/** The README's headline question: it names no toolset, no pod, no kubectl. */
const HEADLINE = "why is checkout-api crashlooping?"

describe("dupin ask tells the person at the terminal", () => {
  test(
    "--yes prints the command it approved",
    async () => {
      fake.script(
        { toolCalls: [{ name: "restart_service", arguments: { service: "nginx" } }] },
        { content: "Restarted." },
      )
      const result = await runCli(
        ["ask", "restart nginx", "--yes", "--toolset-file", approvalToolsetFile()],
        { env: cliEnv(fake) },
      )
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(/approved by --yes: .*nginx/)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "the failed-toolset notice comes for the README's headline question, interactive or not",
    async () => {
      const file = teamToolsets()
      fake.script({ content: "Look at its logs." }, { content: "Look at its logs." })
      session = new PtySession(["ask", HEADLINE, "--toolset-file", file], cliEnv(fake), tmpdir())
      expect(await session.waitFor("\n> ", 20_000)).toMatch(/note: .*team\/needs-var.* not available/)
      session.type("/exit\n")
      await session.exited()

      // One question, no follow-ups (--no-interactive): the note is on stderr all the same.
      session = new PtySession(
        ["ask", HEADLINE, "--no-interactive", "--toolset-file", file],
        cliEnv(fake),
        tmpdir(),
      )
      expect(await session.exited(20_000)).toBe(0)
      expect(session.output).toMatch(/note: .*team\/needs-var.* not available/)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "a tool stopped with Ctrl+C leaves a stopped line, not a spinner frame",
    async () => {
      fake.script({ toolCalls: [{ name: "slow_check", arguments: {} }] }, { content: "unused" })
      session = new PtySession(
        ["ask", "check it", "--toolset-file", teamToolsets()],
        cliEnv(fake, { TERM: "xterm-256color" }),
        tmpdir(),
      )
      await session.waitFor("slow_check", 20_000)
      await waitFor(() => fake.requests.length > 0, { what: "the model call" })
      await Bun.sleep(300)
      session.type("\x03")
      await session.waitFor("Stopped.")
      const shown = visible(session.output)
      expect(shown).toMatch(/■ slow_check\(\) stopped after \d[^\n]*\nStopped\./)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "/model takes a provider id, as --model does",
    async () => {
      fake.script({ content: "First." }, { content: "Second." })
      session = new PtySession(["ask", "hello"], cliEnv(fake), tmpdir())
      await session.waitFor("\n> ", 20_000)
      session.type("/model openai/gpt-4o-mini\n")
      expect(await session.waitFor("\n> ")).toContain("Model: openai/gpt-4o-mini (")
      session.type("and now?\n")
      await session.waitFor("Second.")
      expect(fake.requests.at(-1)?.body?.model).toBe("gpt-4o-mini")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "MODEL ignored because the config sets model: is said once in a session",
    async () => {
      const config = tempFile("dupin.yaml", "model: openai/gpt-4o\n")
      fake.script({ content: "First." }, { content: "Second." })
      session = new PtySession(
        ["ask", "hello", "--config", config],
        cliEnv(fake, { MODEL: "anthropic/claude-sonnet-4-5" }),
        tmpdir(),
      )
      await session.waitFor("\n> ", 20_000)
      session.type("again\n")
      await session.waitFor("Second.")
      session.type("/exit\n")
      await session.exited()
      expect(session.output.split("MODEL=anthropic/claude-sonnet-4-5 is ignored").length - 1).toBe(1)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
