// Issue 21 item 7, through the real `dupin ask` (a subprocess, on a pseudo-terminal where the
// behaviour is a terminal's): what the person at the terminal is told.
import { describe, expect, test } from "bun:test"
import { tmpdir } from "node:os"
import { visible } from "../../src/cli/render/style.ts"
import { waitFor } from "../support/wait.ts"
import { PtySession } from "./pty.ts"
import {
  approvalToolsetFile,
  cliEnv,
  runCli,
  SUBPROCESS_TIMEOUT_MS,
  tempFile,
  terminalTests,
} from "./support.ts"

const t = terminalTests()

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
      t.fake.script(
        { toolCalls: [{ name: "restart_service", arguments: { service: "nginx" } }] },
        { content: "Restarted." },
      )
      const result = await runCli(
        ["ask", "restart nginx", "--yes", "--toolset-file", approvalToolsetFile()],
        { env: cliEnv(t.fake) },
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
      t.fake.script({ content: "Look at its logs." }, { content: "Look at its logs." })
      t.session = new PtySession(["ask", HEADLINE, "--toolset-file", file], cliEnv(t.fake), tmpdir())
      expect(await t.session.waitFor("\n> ", 20_000)).toMatch(/note: .*team\/needs-var.* not available/)
      t.session.type("/exit\n")
      await t.session.exited()

      // One question, no follow-ups (--no-interactive): the note is on stderr all the same.
      t.session = new PtySession(
        ["ask", HEADLINE, "--no-interactive", "--toolset-file", file],
        cliEnv(t.fake),
        tmpdir(),
      )
      expect(await t.session.exited(20_000)).toBe(0)
      expect(t.session.output).toMatch(/note: .*team\/needs-var.* not available/)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "a tool stopped with Ctrl+C leaves a stopped line, not a spinner frame",
    async () => {
      t.fake.script({ toolCalls: [{ name: "slow_check", arguments: {} }] }, { content: "unused" })
      t.session = new PtySession(
        ["ask", "check it", "--toolset-file", teamToolsets()],
        cliEnv(t.fake, { TERM: "xterm-256color" }),
        tmpdir(),
      )
      await t.session.waitFor("slow_check", 20_000)
      await waitFor(() => t.fake.requests.length > 0, { what: "the model call" })
      await Bun.sleep(300)
      t.session.type("\x03")
      await t.session.waitFor("Stopped.")
      const shown = visible(t.session.output)
      expect(shown).toMatch(/■ slow_check\(\) stopped after \d[^\n]*\nStopped\./)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "/model takes a provider id, as --model does",
    async () => {
      t.fake.script({ content: "First." }, { content: "Second." })
      t.session = new PtySession(["ask", "hello"], cliEnv(t.fake), tmpdir())
      await t.session.waitFor("\n> ", 20_000)
      t.session.type("/model openai/gpt-4o-mini\n")
      expect(await t.session.waitFor("\n> ")).toContain("Model: openai/gpt-4o-mini (")
      t.session.type("and now?\n")
      await t.session.waitFor("Second.")
      expect(t.fake.requests.at(-1)?.body?.model).toBe("gpt-4o-mini")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "MODEL ignored because the config sets model: is said once in a session",
    async () => {
      const config = tempFile("dupin.yaml", "model: openai/gpt-4o\n")
      t.fake.script({ content: "First." }, { content: "Second." })
      t.session = new PtySession(
        ["ask", "hello", "--config", config],
        cliEnv(t.fake, { MODEL: "anthropic/claude-sonnet-4-5" }),
        tmpdir(),
      )
      await t.session.waitFor("\n> ", 20_000)
      t.session.type("again\n")
      await t.session.waitFor("Second.")
      t.session.type("/exit\n")
      await t.session.exited()
      expect(t.session.output.split("MODEL=anthropic/claude-sonnet-4-5 is ignored").length - 1).toBe(1)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
