/**
 * An MCP tool that needs approval goes through the same approval paths as a YAML tool: the HTTP
 * pause and signed resume (the resume calls the same MCP tool with the same arguments), the CLI's
 * terminal prompt. (The library callback: servers.test.ts.) The fault server writes every call it
 * gets to DIR/calls, so a test sees what really ran.
 */
import { afterEach, expect, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { stopMcpServers } from "../../src/toolset/mcp/index.ts"
import { PtySession } from "../cli/pty.ts"
import { cliEnv, messagesOf, SUBPROCESS_TIMEOUT_MS } from "../cli/support.ts"
import { startHarness } from "../server/harness.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { FAULT_SERVER, faultServer, starts, tempDir } from "./support.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

let session: PtySession | undefined
let fake: FakeProvider | undefined
afterEach(async () => {
  session?.proc.kill()
  session = undefined
  await fake?.stop()
  fake = undefined
  await stopMcpServers()
})

function calls(dir: string): string[] {
  try {
    return readFileSync(join(dir, "calls"), "utf8").trim().split("\n").filter(Boolean)
  } catch {
    return []
  }
}

const ARGS = { message: "drain node-7", options: { level: "high" }, tags: ["ops"] }

test("HTTP: an MCP tool that needs approval pauses; the signed resume calls it with the same arguments; a denial does not", async () => {
  const dir = tempDir()
  const h = await startHarness({
    init: { mcpServers: { fault: faultServer(dir, { requires_approval: ["echo"] }) } },
  })
  try {
    h.fake.script({
      toolCalls: [
        { id: "e1", name: "echo", arguments: ARGS },
        { id: "e2", name: "echo", arguments: { message: "second" } },
      ],
    })
    const paused = (await (await h.post({ ask: "drain it", enable_tool_approval: true })).json()) as Body
    expect(paused.requires_approval).toBe(true)
    expect(paused.pending_approvals.map((p: Body) => p.tool_call_id).sort()).toEqual(["e1", "e2"])
    expect(paused.pending_approvals.find((p: Body) => p.tool_call_id === "e1").params).toEqual(ARGS)
    expect(calls(dir).filter((c) => c.startsWith("echo"))).toEqual([])

    h.fake.script({ content: "Drained." })
    const resumed = (await (
      await h.post({
        conversation_history: paused.conversation_history,
        tool_decisions: [
          { tool_call_id: "e1", approved: true },
          { tool_call_id: "e2", approved: false, feedback: "not that one" },
        ],
      })
    ).json()) as Body
    expect(resumed.analysis).toBe("Drained.")
    const byId = Object.fromEntries(resumed.tool_calls.map((c: Body) => [c.tool_call_id, c.result]))
    expect(byId.e1.status).toBe("success")
    expect(byId.e1.data).toBe(`echo ${JSON.stringify(ARGS)}`)
    expect(byId.e2.status).toBe("error")
    // The server got exactly the approved call, with the model's arguments.
    expect(calls(dir).filter((c) => c.startsWith("echo"))).toEqual([`echo ${JSON.stringify(ARGS)}`])
    // One kept connection: both HTTP requests used the same server process.
    expect(starts(dir)).toHaveLength(1)
  } finally {
    await h.stop()
  }
})

test(
  "CLI: the terminal prompt asks before an MCP tool that needs approval; y runs it, n does not",
  async () => {
    const dir = tempDir()
    fake = await startFakeProvider()
    fake.script(
      {
        toolCalls: [
          { name: "echo", arguments: { message: "yes please" } },
          { name: "echo", arguments: { message: "no thanks" } },
        ],
      },
      { content: "One ran." },
    )
    const config = join(dir, "dupin.yaml")
    writeFileSync(
      config,
      [
        "security:",
        "  containment: off",
        "mcp_servers:",
        "  fault:",
        "    requires_approval: true",
        "    config:",
        `      command: ${process.execPath}`,
        `      args: [${JSON.stringify(FAULT_SERVER)}, ${JSON.stringify(dir)}]`,
        "",
      ].join("\n"),
    )
    session = new PtySession(["ask", "echo twice", "--config", config], cliEnv(fake), tmpdir())
    await session.waitFor('Run echo(message="yes please")? [y/N] ')
    session.type("y\n")
    await session.waitFor('Run echo(message="no thanks")? [y/N] ')
    session.type("n\n")
    await session.waitFor("Feedback for the model (optional, Enter to skip): ")
    session.type("\n")
    expect(await session.waitFor("\n> ")).toContain("One ran.")
    expect(calls(dir)).toEqual([`echo ${JSON.stringify({ message: "yes please" })}`])
    const results = messagesOf(fake.requests[1]?.body ?? null)
      .filter((m) => m.role === "tool")
      .map((m) => String(m.content))
    expect(results[0]).toContain("echo")
    expect(results[1]).toContain("Tool execution was denied by the user")
  },
  SUBPROCESS_TIMEOUT_MS,
)
