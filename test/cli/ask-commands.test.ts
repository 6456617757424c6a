import { describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { waitFor } from "../support/wait.ts"
import { PtySession } from "./pty.ts"
import { cliEnv, messagesOf, SUBPROCESS_TIMEOUT_MS, tempFile, terminalTests } from "./support.ts"

/** A new prompt: bracketed paste switched on with raw mode, then the prompt drawn. */
const PROMPT = "\x1b[?2004h\r\x1b[J> "

const t = terminalTests()

/** A PATH with a few programs and no kubectl, helm or docker: their toolsets fail. */
function pathWithoutKubectl(): string {
  const bin = mkdtempSync(join(tmpdir(), "dupin-bin-"))
  for (const program of ["sh", "bash", "seq", "sed", "cat", "env"]) {
    const found = Bun.which(program)
    if (found) symlinkSync(found, join(bin, program))
  }
  return bin
}

function start(args: string[], extra: Record<string, string>): PtySession {
  t.session = new PtySession(
    args,
    cliEnv(t.fake, {
      TERM: "xterm-256color",
      XDG_STATE_HOME: mkdtempSync(join(tmpdir(), "dupin-state-")),
      ...extra,
    }),
    tmpdir(),
  )
  return t.session
}

describe("an interactive start that orients", () => {
  test(
    "the banner names a failed toolset, a kubernetes question gets a notice, Tab completes /sh, /show and /last page a full output, exit works",
    async () => {
      const toolset = tempFile(
        "logs.yaml",
        `toolsets:
  test/logs:
    description: Test logs
    tools:
      - name: print_log
        description: Print a long log
        command: "seq 1 300; printf 'evil\\\\033]0;owned\\\\007end'"
`,
      )
      t.fake.script({ toolCalls: [{ name: "print_log", arguments: {} }] }, { content: "Looked at the log." })
      const s = start(["ask", "--toolset-file", toolset], {
        PATH: pathWithoutKubectl(),
        PAGER: "sed 's/^/paged: /'",
      })
      const banner = await s.waitFor(PROMPT)
      expect(banner).toMatch(
        /dupin · openai\/gpt-4o · 128k context · failed: .*kubernetes\/core \(kubectl not found on PATH\).* · \/help for commands/,
      )

      s.type("why are the pods in namespace web crashing?\r")
      const answer = await s.waitFor(PROMPT)
      expect(answer).toContain("note: kubernetes/core")
      expect(answer).toContain("so this answer cannot use")
      expect(answer).toContain("Looked at the log.")

      // Tab completes the unique command and adds a space.
      s.type("/sh\t")
      await s.waitFor("/show ")
      s.type("1\r")
      const shown = await s.waitFor(PROMPT)
      expect(shown).toContain("paged: # 1: print_log")
      expect(shown).toContain("paged: 300")
      // An escape sequence in a tool's output reaches the terminal as text, not as a sequence.
      expect(shown).toContain("paged: evil]0;ownedend")
      expect(shown).not.toContain("\x1b]0;owned")
      s.type("/last\r")
      expect(await s.waitFor(PROMPT)).toContain("paged: 299")
      s.type("/show\r")
      expect(await s.waitFor(PROMPT)).toMatch(/1 {2}✓ print_log/)
      s.type("/show 7\r")
      expect(await s.waitFor(PROMPT)).toContain("No tool call 7: this session has calls 1 to 1")
      s.type("/help\r")
      const help = await s.waitFor(PROMPT)
      for (const command of ["/exit", "/clear", "/tools", "/context", "/show", "/last", "/model", "Ctrl+R"]) {
        expect(help).toContain(command)
      }
      s.type("exit\r")
      expect(await s.exited()).toBe(0)
      expect(t.fake.requests).toHaveLength(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "/model switches model for the next question, and an unknown name lists the models (config from XDG_CONFIG_HOME)",
    async () => {
      const xdg = mkdtempSync(join(tmpdir(), "dupin-xdg-"))
      mkdirSync(join(xdg, "dupin"))
      const entry = (id: string) => `    model: ${id}\n    api_key: test\n    api_base: ${t.fake.url}\n`
      writeFileSync(
        join(xdg, "dupin", "config.yaml"),
        `model: fast\nmodelList:\n  fast:\n${entry("openai/gpt-4o")}  big:\n${entry("openai/gpt-4.1")}`,
      )
      t.fake.script({ content: "first" }, { content: "second" })
      const s = start(["ask"], { XDG_CONFIG_HOME: xdg, MODEL: "" })
      expect(await s.waitFor(PROMPT)).toContain("dupin · openai/gpt-4o")
      s.type("hello\r")
      await s.waitFor(PROMPT)
      s.type("/model nope\r")
      expect(await s.waitFor(PROMPT)).toContain('Unknown model "nope". Available models: fast, big.')
      s.type("/model big\r")
      expect(await s.waitFor(PROMPT)).toContain("Model: big (1,047,576-token context)")
      s.type("and now?\r")
      await waitFor(() => t.fake.requests.length > 1, { what: "the second question" })
      expect(t.fake.requests[0]?.body?.model).toBe("gpt-4o")
      expect(t.fake.requests[1]?.body?.model).toBe("gpt-4.1")
      // The conversation went on: the second request carries the first answer.
      expect(messagesOf(t.fake.requests[1]?.body ?? null).map((m) => m.content)).toContain("first")
      await s.waitFor(PROMPT)
      s.type("quit\r")
      expect(await s.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
