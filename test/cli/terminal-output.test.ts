import { describe, expect, test } from "bun:test"
import { tmpdir } from "node:os"
import { screenOf } from "../support/screen.ts"
import { PtySession } from "./pty.ts"
import { cliEnv, runCli, SUBPROCESS_TIMEOUT_MS, tempFile, terminalTests } from "./support.ts"

/**
 * What `dupin ask` shows on a real terminal (a pseudo-terminal with a colour TERM) against what
 * it prints through a pipe: rendered markdown or raw, the streamed answer, the spinner.
 */
const t = terminalTests()

const ESC = "\x1b"
const ANSWER = [
  "# Cause",
  "",
  "The **disk** is full on `web-1`.",
  "",
  "| pod | status |",
  "|---|---|",
  "| web-1 | Evicted |",
  "",
  "See [the runbook](https://example.com/disk).",
  "",
  "1. Free space on `web-1`: **delete** old logs",
  "2. Restart it",
  "",
].join("\n")
// Any SGR colour or weight: what NO_COLOR must leave out.
const STYLED = new RegExp(`${ESC}\\[(1|2|3[0-9]|4|9[0-9])m`)

const onTerminal = (args: string[], extra: Record<string, string> = {}) =>
  new PtySession(["ask", ...args], { ...cliEnv(t.fake), TERM: "xterm-256color", ...extra }, tmpdir())

/** The output after the last erase: what the screen keeps of the answer. */
const afterLastErase = (output: string) => output.slice(output.lastIndexOf(`${ESC}[J`))

describe("the answer on a terminal", () => {
  test(
    "streams in raw as the model writes, then is cleared and rendered: heading, bold, table, link with its URL",
    async () => {
      const { promise: release, resolve } = Promise.withResolvers<void>()
      t.fake.script({
        content: ANSWER,
        chunks: [
          "# Cause\n\nThe **disk** ",
          "is full on `web-1`.\n\n",
          ANSWER.slice(ANSWER.indexOf("| pod")),
        ],
        hangAfterChunks: 1,
        resumeWhen: release,
      })
      t.session = onTerminal(["why is web down?", "--no-interactive"])
      // The first piece is on the screen while the provider still holds the rest back.
      await t.session.waitFor("The **disk** ")
      expect(t.session.output).not.toContain("Evicted")
      expect(t.session.proc.exitCode).toBeNull()
      resolve()
      expect(await t.session.exited(SUBPROCESS_TIMEOUT_MS)).toBe(0)

      const out = t.session.output
      // The raw text was on screen, then erased, then the rendered answer below a rule.
      expect(out.indexOf("| web-1 | Evicted |")).toBeGreaterThan(-1)
      const rendered = afterLastErase(out)
      expect(rendered).toContain("─".repeat(20))
      expect(rendered).not.toContain("# Cause")
      expect(rendered).toMatch(new RegExp(`${ESC}\\[1mCause${ESC}\\[22m`))
      expect(rendered).toMatch(new RegExp(`${ESC}\\[1mdisk${ESC}\\[22m`))
      expect(rendered).toContain("┌")
      expect(rendered).toMatch(/│.*web-1.*│.*Evicted.*│/)
      expect(rendered).toContain("https://example.com/disk")
      expect(rendered).not.toContain("**")
      expect(t.fake.requests[0]?.body?.stream).toBe(true)

      // What the screen keeps: the rendered answer once, no raw markdown, no spinner.
      const screen = await screenOf(out)
      expect(screen).toContain("Cause\n\nThe disk is full on web-1.")
      expect(screen).toContain("See the runbook (https://example.com/disk).")
      expect(screen).not.toContain("**")
      expect(screen).not.toContain("`")
      expect(screen).toMatch(/1\. Free space on web-1: delete old logs/)
      expect(screen).not.toContain("# Cause")
      expect(screen).not.toContain("Thinking")
      expect(screen.split("The disk is full").length).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  for (const [name, args, env] of [
    ["NO_COLOR=1", [], { NO_COLOR: "1" }],
    ["--no-color", ["--no-color"], {}],
  ] as const) {
    test(
      `${name}: raw markdown and no colour, still streamed`,
      async () => {
        t.fake.script({ content: ANSWER, chunkDelayMs: 20 })
        t.session = onTerminal(["why is web down?", "--no-interactive", ...args], env)
        expect(await t.session.exited(SUBPROCESS_TIMEOUT_MS)).toBe(0)
        const out = t.session.output
        expect(out).toContain("# Cause")
        expect(out).toContain("| web-1 | Evicted |")
        expect(out).toContain("[the runbook](https://example.com/disk)")
        expect(out).not.toContain("┌")
        expect(out).not.toMatch(STYLED)
        expect(t.fake.requests[0]?.body?.stream).toBe(true)
      },
      SUBPROCESS_TIMEOUT_MS,
    )
  }

  test(
    "through a pipe the answer is the raw markdown, exactly, and the provider call is not streamed",
    async () => {
      t.fake.script({ content: ANSWER })
      const result = await runCli(["ask", "why is web down?"], {
        env: { ...cliEnv(t.fake), TERM: "xterm-256color" },
      })
      expect(result.code).toBe(0)
      expect(result.stdout).toBe(ANSWER)
      expect(result.stdout + result.stderr).not.toContain(ESC)
      expect(t.fake.requests[0]?.body?.stream).toBeUndefined()
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

describe("signs of life on a terminal", () => {
  test(
    "a spinner with elapsed time while the model thinks and while a tool runs, cleared before the answer",
    async () => {
      const toolset = tempFile(
        "slow.yaml",
        `toolsets:
  test/slow:
    description: Slow things
    tools:
      - name: slow_check
        description: Takes a while
        command: "sleep 0.6; echo checked {{ target }}"
        parameters:
          target: { type: string }
`,
      )
      t.fake.script(
        { toolCalls: [{ name: "slow_check", arguments: { target: "db" } }], delayMs: 600 },
        { content: "All **fine**.", delayMs: 600 },
      )
      t.session = onTerminal(["is the db ok?", "--no-interactive", "--toolset-file", toolset])
      expect(await t.session.exited(SUBPROCESS_TIMEOUT_MS)).toBe(0)
      const out = t.session.output
      // Spinner frames with a clock for the model, then for the running call, named with its argument.
      expect(out).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\S* Thinking\S* \d+\.\ds/)
      expect(out).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\S* slow_check\(target=db\)\S* \d+\.\ds/)
      expect(out).toMatch(/✓\S* slow_check\(target=db\) \S*\d+\.\ds/)
      // Each drawing of the area is erased (cursor up, erase down) before anything else is written.
      const lastSpinner = Math.max(
        out.lastIndexOf("Thinking"),
        out.lastIndexOf("slow_check(target=db)\u001b[2m"),
      )
      const erase = out.indexOf(`${ESC}[1A\r${ESC}[J`, lastSpinner)
      expect(erase).toBeGreaterThan(lastSpinner)
      expect(out.indexOf("fine", erase)).toBeGreaterThan(erase)
      const screen = await screenOf(out)
      expect(screen).not.toContain("Thinking")
      expect(screen).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/)
      expect(screen).toMatch(/^✓ slow_check\(target=db\) \d+\.\ds$/m)
      expect(screen).toMatch(/All fine\.$/)
      // Colour marks the outcome.
      expect(out).toContain(`${ESC}[32m✓${ESC}[39m slow_check(target=db)`)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
