import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"
import { PtySession } from "./pty.ts"
import { approvalToolsetFile, cliEnv, messagesOf, SUBPROCESS_TIMEOUT_MS } from "./support.ts"

/** A new prompt: bracketed paste switched on with raw mode, then the prompt drawn. */
const PROMPT = "\x1b[?2004h\r\x1b[J> "
const HOME = "\x1b[H"
const END = "\x1b[F"
const LEFT = "\x1b[D"
const UP = "\x1b[A"
const ALT_B = "\x1bb"
const CTRL = { a: "\x01", c: "\x03", d: "\x04", e: "\x05", k: "\x0b", r: "\x12", u: "\x15", w: "\x17" }

let fake: FakeProvider
let sessions: PtySession[] = []
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  for (const s of sessions) s.proc.kill()
  sessions = []
  await fake.stop()
})

/** An interactive `dupin ask` on a terminal that takes escape sequences, history under `state`. */
function start(state: string, args: string[] = ["ask"], extra: Record<string, string> = {}): PtySession {
  const session = new PtySession(
    args,
    cliEnv(fake, { TERM: "xterm-256color", XDG_STATE_HOME: state, ...extra }),
    tmpdir(),
  )
  sessions.push(session)
  return session
}

/** The last user message of request `i`: the question as the model got it. */
function question(i: number): string {
  return String(messagesOf(fake.requests[i]?.body ?? null).at(-1)?.content ?? "")
}

async function ask(session: PtySession, keys: string, i: number): Promise<string> {
  session.type(keys)
  await waitFor(() => fake.requests.length > i, { what: `request ${i + 1}` })
  await session.waitFor(PROMPT)
  return question(i)
}

describe("the line editor at the > prompt", () => {
  test(
    "arrow-left insert, Home/End, Ctrl+A/E, Ctrl+W and Alt+B edit the question the model gets",
    async () => {
      fake.script({ content: "one" }, { content: "two" }, { content: "three" })
      const session = start(mkdtempSync(join(tmpdir(), "dupin-state-")))
      await session.waitFor(PROMPT)
      // "chek disk": six lefts put the cursor after "che"; Home and End wrap the line.
      expect(await ask(session, `chek disk${LEFT.repeat(6)}c${HOME}please ${END} now\r`, 0)).toEndWith(
        "please check disk now",
      )
      // Ctrl+W drops "bar" (the word before the cursor); Alt+B goes back over "foo".
      expect(await ask(session, `restart foo bar${CTRL.w}${ALT_B}the ${CTRL.e}service\r`, 1)).toEndWith(
        "restart the foo service",
      )
      // Ctrl+A then Ctrl+K empties the line; Ctrl+U drops what is before the cursor.
      expect(await ask(session, `junk${CTRL.a}${CTRL.k}old text${CTRL.u}is dns ok?\r`, 2)).toEndWith(
        "is dns ok?",
      )
      // Ctrl+L clears the screen; Tab after "/" lists the commands it could complete.
      session.type("\x0c")
      await session.waitFor("\x1b[H\x1b[2J")
      session.type("/\t")
      await session.waitFor("/help  /exit  /clear  /tools  /context  /show  /last  /model")
      session.type(`${CTRL.u}${CTRL.d}`)
      expect(await session.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "history survives a restart (Up, Ctrl+R), is 0600 in a 0700 dir, and a token-looking line is not saved",
    async () => {
      fake.script({ content: "a" }, { content: "b" }, { content: "c" }, { content: "d" }, { content: "e" })
      const state = mkdtempSync(join(tmpdir(), "dupin-state-"))
      const first = start(state)
      await first.waitFor(PROMPT)
      await ask(first, "how full is /var?\r", 0)
      await ask(first, "what about the dns resolver\r", 1)
      const secret = "my key is sk-proj-Zx8Yq2Lm4Np6Rs8Tu0Vw2Xy4Za6Bc8De"
      expect(await ask(first, `${secret}\r`, 2)).toEndWith(secret)
      first.type(CTRL.d)
      expect(await first.exited()).toBe(0)

      const file = join(state, "dupin", "history")
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(statSync(join(state, "dupin")).mode & 0o777).toBe(0o700)
      const saved = readFileSync(file, "utf8")
      expect(saved).toContain("how full is /var?")
      expect(saved).not.toContain("sk-proj")

      const second = start(state)
      await second.waitFor(PROMPT)
      // Up recalls the newest kept question of the earlier session (the secret was never kept).
      expect(await ask(second, `${UP}\r`, 3)).toEndWith("what about the dns resolver")
      expect(await ask(second, `${CTRL.r}var${CTRL.r}\r`, 4)).toEndWith("how full is /var?")
      second.type(CTRL.d)
      expect(await second.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "a multi-line bracketed paste is one question; Alt+Enter and a trailing backslash continue it",
    async () => {
      fake.script({ content: "one request" }, { content: "two" })
      const session = start(mkdtempSync(join(tmpdir(), "dupin-state-")))
      await session.waitFor(PROMPT)
      const paste = "\x1b[200~E0601 pod/api crashed\r\nE0601 OOMKilled\nE0601 back-off\x1b[201~"
      const got = await ask(session, `why?${paste}\r`, 0)
      expect(got).toEndWith("why?E0601 pod/api crashed\nE0601 OOMKilled\nE0601 back-off")
      expect(fake.requests).toHaveLength(1)
      expect(await ask(session, "first\x1b\rsecond \\\rthird\r", 1)).toEndWith("first\nsecond \nthird")
      expect(fake.requests).toHaveLength(2)
      session.type("quit\r")
      expect(await session.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "Ctrl+C clears a typed line, at an empty prompt asks again, and twice exits 130",
    async () => {
      fake.script({ content: "fine" })
      const session = start(mkdtempSync(join(tmpdir(), "dupin-state-")))
      await session.waitFor(PROMPT)
      session.type(`half a question${CTRL.c}`)
      await session.waitFor("^C")
      await session.waitFor("\x1b[J> ")
      expect(await ask(session, "whole question\r", 0)).toEndWith("whole question")
      session.type(CTRL.c)
      await session.waitFor("press Ctrl+C again to exit")
      session.type(CTRL.c)
      expect(await session.exited()).toBe(130)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "with the editor, an approval is answered at its own prompt, and Ctrl+C during a run stops it",
    async () => {
      fake.script(
        { toolCalls: [{ name: "restart_service", arguments: { service: "nginx" } }] },
        { content: "Restarted." },
        { hang: true },
        { content: "Back." },
      )
      const session = start(mkdtempSync(join(tmpdir(), "dupin-state-")), [
        "ask",
        "restart nginx",
        "--toolset-file",
        approvalToolsetFile(),
      ])
      await session.waitFor("Run restart_service(service=nginx)? [y/N] ")
      session.type("y\r")
      expect(await session.waitFor(PROMPT)).toContain("Restarted.")
      expect(String(messagesOf(fake.requests[1]?.body ?? null).at(-1)?.content)).toContain("restarted nginx")

      session.type("slow one\r")
      await waitFor(() => fake.requests.length > 2, { what: "the hung model call" })
      // The terminal is in cooked mode during the run: Ctrl+C is the kernel's SIGINT.
      session.type(CTRL.c)
      await session.waitFor("Stopped.")
      await session.waitFor(PROMPT)
      expect(await ask(session, "again\r", 3)).toEndWith("again")
      session.type(CTRL.d)
      expect(await session.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "with the editor, Ctrl+C at an approval question denies the call and stops the run",
    async () => {
      fake.script({ toolCalls: [{ name: "restart_service", arguments: { service: "nginx" } }] })
      const session = start(mkdtempSync(join(tmpdir(), "dupin-state-")), [
        "ask",
        "restart nginx",
        "--toolset-file",
        approvalToolsetFile(),
      ])
      await session.waitFor("Run restart_service(service=nginx)? [y/N] ")
      session.type(`y${CTRL.c}`)
      await session.waitFor("Stopped.")
      await session.waitFor(PROMPT)
      expect(fake.requests).toHaveLength(1)
      expect(session.output).not.toContain("✓ restart_service")
      session.type("exit\r")
      expect(await session.exited()).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
