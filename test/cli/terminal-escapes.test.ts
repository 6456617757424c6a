import { afterEach, beforeEach, expect, test } from "bun:test"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { approvalToolsetFile, cliEnv, runCli, SUBPROCESS_TIMEOUT_MS } from "./support.ts"

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

// A window title, a line erase with carriage return, an OSC 52 clipboard write, a one-byte CSI.
const HOSTILE =
  "\u001b]0;owned\u0007A\u001b[2K\rB\u001b]52;c;cm0gLXJmIH4=\u0007C\u009b31mD\u0008E\u202eF\tG\nH"
const SAFE = "]0;ownedA[2KB]52;c;cm0gLXJmIH4=C31mDEF\tG\nH"
// Every byte a sequence could start with; \n and \t stay.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

test(
  "ask strips terminal control characters from the answer, the model's notes and tool errors",
  async () => {
    fake.script(
      {
        content: `note ${HOSTILE}`,
        toolCalls: [{ name: "no_such\u001b]0;t\u0007_tool", arguments: { x: HOSTILE } }],
      },
      { content: HOSTILE },
    )
    const result = await runCli(["ask", "hi"], { env: cliEnv(fake) })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${SAFE}\n`)
    expect(result.stdout).not.toMatch(CONTROL)
    expect(result.stderr).not.toMatch(CONTROL)
    expect(result.stderr).toContain("✗ no_such]0;t_tool")
    expect(result.stderr).toContain("note ]0;ownedA[2K")
  },
  SUBPROCESS_TIMEOUT_MS,
)

test(
  "ask strips them from the progress line of an approved call (JSON leaves C1 and bidi controls raw)",
  async () => {
    fake.script(
      { toolCalls: [{ name: "restart_service", arguments: { service: "\u009b2J\u202eweb" } }] },
      { content: "done" },
    )
    const result = await runCli(["ask", "restart it", "--toolset-file", approvalToolsetFile(), "--yes"], {
      env: cliEnv(fake),
    })
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("▸ restart_service(service=")
    expect(result.stderr).not.toMatch(CONTROL)
  },
  SUBPROCESS_TIMEOUT_MS,
)
