/**
 * CONTRACT §5 "An approved call takes effect" and §8 `writable_paths` (issue 19.2), through every
 * face, with real bubblewrap: an approved write lands on the host (HTTP resume, `dupin ask --yes`,
 * the library's approval callback, an MCP server's `write_file` inside its `writable_paths`); the
 * same write without approval does not.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config } from "../../src/config/config.ts"
import { createRuntime } from "../../src/runtime/runtime.ts"
import { containmentInfo, resetContainment } from "../../src/tool/containment/index.ts"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { stopMcpServers } from "../../src/toolset/mcp/index.ts"
import { cliEnv, runCli, SUBPROCESS_TIMEOUT_MS } from "../cli/support.ts"
import { FILESYSTEM, readyExecutor, toolCall } from "../mcp/support.ts"
import { eventOf, type Harness, startHarness } from "../server/harness.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

const BWRAP = Bun.which("bwrap") !== null && process.platform === "linux"

function writerToolset(dir: string): string {
  const file = join(dir, "writers.yaml")
  writeFileSync(
    file,
    `toolsets:
  test/writers:
    description: Tools that write a file
    tools:
      - name: touch_approved
        description: Create a file (needs approval)
        command: "touch {{ path }} && echo touched"
        parameters:
          path: { type: string }
        requires_approval: true
      - name: touch_free
        description: Create a file (no approval)
        command: "touch {{ path }} && echo touched"
        parameters:
          path: { type: string }
`,
  )
  return file
}

describe.skipIf(!BWRAP)("an approved call takes effect", () => {
  let fake: FakeProvider
  let dir: string
  beforeEach(async () => {
    resetContainment()
    fake = await startFakeProvider()
    dir = mkdtempSync(join(tmpdir(), "dupin-approved-"))
  })
  afterEach(async () => {
    await fake.stop()
    resetContainment()
  })

  test("library: the approval callback's yes writes on the host; the unapproved call stays read-only", async () => {
    const config = new Config({
      model: "openai/gpt-4o",
      apiBase: fake.url,
      apiKey: "test",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      customToolsets: [writerToolset(dir)],
    })
    const approvedFile = join(dir, "approved")
    const freeFile = join(dir, "free")
    fake.script(
      {
        toolCalls: [
          { id: "a1", name: "touch_approved", arguments: { path: approvedFile } },
          { id: "f1", name: "touch_free", arguments: { path: freeFile } },
        ],
      },
      { content: "Done." },
    )
    const result = await createRuntime(config)
      .engine()
      .call([{ role: "user", content: "touch" }], {
        approvalCallback: () => true,
      })
    // Contained by default (issue 19.3): nobody called applyContainment.
    expect(containmentInfo()).toMatchObject({ level: "namespaces", mechanism: "bwrap" })
    expect(existsSync(approvedFile)).toBe(true)
    expect(existsSync(freeFile)).toBe(false)
    expect(JSON.stringify(result)).toContain("Read-only file system")
  }, 60_000)

  test(
    "dupin ask --yes: the approved write lands",
    async () => {
      const target = join(dir, "by-ask")
      fake.script(
        { toolCalls: [{ name: "touch_approved", arguments: { path: target } }] },
        { content: "Done." },
      )
      const run = await runCli(["ask", "touch it", "--toolset-file", writerToolset(dir), "--yes", "--json"], {
        env: cliEnv(fake),
      })
      expect(run.code).toBe(0)
      expect(existsSync(target)).toBe(true)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "dupin ask without approval: the same write fails read-only",
    async () => {
      const target = join(dir, "by-ask-free")
      fake.script({ toolCalls: [{ name: "touch_free", arguments: { path: target } }] }, { content: "Done." })
      const run = await runCli(["ask", "touch it", "--toolset-file", writerToolset(dir), "--json"], {
        env: cliEnv(fake),
      })
      expect(run.code).toBe(0)
      expect(run.stdout).toContain("Read-only file system")
      expect(existsSync(target)).toBe(false)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

describe.skipIf(!BWRAP)("over HTTP: an approved decision takes effect on resume", () => {
  let h: Harness | undefined
  beforeEach(() => resetContainment())
  afterEach(async () => {
    await h?.stop()
    h = undefined
    resetContainment()
  })

  test("the resumed, approved restart writes its file; the unapproved note does not", async () => {
    h = await startHarness({ init: { security: { containment: "auto" } } })
    h.fake.script({
      toolCalls: [
        { id: "n1", name: "note", arguments: { text: "look" } },
        { id: "r1", name: "restart", arguments: { service: "web" } },
      ],
    })
    const { events } = await h.stream({ ask: "fix it", enable_tool_approval: true })
    const history = eventOf(events, "approval_required").conversation_history
    expect(existsSync(join(h.dir, "notes.txt"))).toBe(false)
    h.fake.script({ content: "Restarted." })
    const resumed = await h.stream({
      conversation_history: history,
      enable_tool_approval: true,
      tool_decisions: [{ tool_call_id: "r1", approved: true }],
    })
    expect(resumed.response.status).toBe(200)
    expect(existsSync(join(h.dir, "restarted.txt"))).toBe(true)
    expect(existsSync(join(h.dir, "notes.txt"))).toBe(false)
  }, 60_000)
})

describe.skipIf(!BWRAP)("MCP stdio servers write only inside their writable_paths", () => {
  let fake: FakeProvider
  beforeAll(async () => {
    resetContainment()
    fake = await startFakeProvider()
  })
  afterAll(async () => {
    await stopMcpServers()
    await fake.stop()
    resetContainment()
  })

  test("server-filesystem's write_file lands in a writable path, and fails beside it", async () => {
    const writable = mkdtempSync(join(tmpdir(), "dupin-mcp-writable-"))
    const readOnly = mkdtempSync(join(tmpdir(), "dupin-mcp-readonly-"))
    const config = new Config({
      model: "openai/gpt-4o",
      apiBase: fake.url,
      apiKey: "test",
      env: { PATH: process.env.PATH ?? "" },
      mcpServers: {
        files: {
          config: {
            command: process.execPath,
            args: [FILESYSTEM, writable, readOnly],
            writable_paths: [writable],
          },
        },
      },
    })
    const executor = await readyExecutor(config)
    const signal = new AbortController().signal
    const ok = await executor.run(
      executor.prepare(toolCall("write_file", { path: join(writable, "notes.md"), content: "hello" })),
      signal,
    )
    expect(ok.status).toBe(ToolResultStatus.SUCCESS)
    expect(await Bun.file(join(writable, "notes.md")).text()).toBe("hello")
    const refused = await executor.run(
      executor.prepare(toolCall("write_file", { path: join(readOnly, "notes.md"), content: "hello" })),
      signal,
    )
    expect(refused.status).toBe(ToolResultStatus.ERROR)
    expect(existsSync(join(readOnly, "notes.md"))).toBe(false)
  }, 60_000)
})
