/**
 * Issue 14 item 5 on top of issue 12 item 4: an MCP server (server-everything over stdio, a real
 * third-party server) next to the built-in toolsets on an 8k model. Its tools are the first held
 * back; the model finds one with search_tools and calls it on the next step.
 */

import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { rmSync } from "node:fs"
import { buildInitialAskMessages } from "../../src/core/prompt.ts"
import { stopMcpServers } from "../../src/toolset/mcp/index.ts"
import { EVERYTHING, faultServer, tempDir } from "../mcp/support.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"
import {
  completions,
  fakeClusterTools,
  type SmallWindow,
  smallConfig,
  toolNames,
} from "./small-window-support.ts"

let tools: SmallWindow
let fake: FakeProvider
beforeAll(async () => {
  tools = fakeClusterTools()
  fake = await startFakeProvider()
})
afterAll(async () => {
  await fake.stop()
  tools.cleanup()
})
afterEach(async () => {
  await stopMcpServers()
})

test("8k window: MCP tools are held back before any built-in tool, and get-sum is found and called", async () => {
  const config = smallConfig(
    fake,
    tools,
    8000,
    {},
    {
      mcpServers: { everything: { config: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
    },
  )
  const llm = config.createConsoleToolCallingLLM()
  const messages = await buildInitialAskMessages({
    initialUserPrompt: "What is 2+3?",
    toolExecutor: llm.toolExecutor,
  })
  const mcp = llm.toolExecutor.toolsets.find((t) => t.name === "everything")
  expect(mcp?.status).toBe("enabled")
  const mcpTools = mcp?.tools.map((t) => t.name) ?? []
  expect(mcpTools).toContain("get-sum")
  fake.script(
    { toolCalls: [{ id: "find", name: "search_tools", arguments: { query: "get-sum" } }] },
    { toolCalls: [{ id: "sum", name: "get-sum", arguments: { a: 2, b: 3 } }] },
    { content: "It is 5." },
  )
  const result = await llm.call(messages)
  expect(result.result).toBe("It is 5.")
  const [first, second] = completions(fake)
  const sentFirst = toolNames(first!)
  // Not one MCP tool up front, while some built-in tools still are.
  expect(sentFirst.filter((name) => mcpTools.includes(name))).toEqual([])
  expect(sentFirst).toContain("TodoWrite")
  expect(sentFirst.length).toBeGreaterThan(3)
  expect(toolNames(second!)).toContain("get-sum")
  expect(String(result.toolCalls?.find((c) => c.toolCallId === "sum")?.result.data)).toContain("5")
  expect(result.metadata?.deferred_tools?.loaded_by_search).toEqual(["get-sum"])
})

test("8k: a tool a server adds mid-run (tools/list_changed) is held back, found by a search in the step it arrived, and called", async () => {
  const dir = tempDir()
  try {
    const config = smallConfig(fake, tools, 8000, {}, { mcpServers: { fault: faultServer(dir) } })
    const llm = config.createConsoleToolCallingLLM()
    const messages = await buildInitialAskMessages({
      initialUserPrompt: "Check it",
      toolExecutor: llm.toolExecutor,
    })
    const mcp = llm.toolExecutor.toolsets.find((t) => t.name === "fault")
    expect(mcp?.status).toBe("enabled")
    const named = (base: string) => mcp?.tools.find((t) => t.name.endsWith(base))?.name
    const before = completions(fake).length
    fake.script(
      // add_tool is held back (MCP tools go first); the model calls it by name without searching.
      { toolCalls: [{ id: "add", name: named("add_tool") ?? "add_tool", arguments: {} }] },
      // The search runs once the new tool arrived, whatever the plan of this step said.
      async () => {
        await waitFor(() => named("late_tool"), { what: "late_tool in the fault server's tool list" })
        return { toolCalls: [{ id: "find", name: "search_tools", arguments: { query: "late_tool" } }] }
      },
      () => ({ toolCalls: [{ id: "late", name: named("late_tool") ?? "", arguments: {} }] }),
      { content: "done" },
    )
    const result = await llm.call(messages)
    expect(result.result).toBe("done")
    const late = named("late_tool") ?? ""
    const requests = completions(fake).slice(before)
    expect(toolNames(requests[0]!)).not.toContain(named("add_tool"))
    expect(toolNames(requests[2]!)).toContain(late)
    expect(String(result.toolCalls?.find((c) => c.toolCallId === "late")?.result.data)).toContain(
      "late tool ran",
    )
    expect(result.metadata?.deferred_tools?.loaded_by_search).toEqual([late])
  } finally {
    await stopMcpServers()
    rmSync(dir, { recursive: true, force: true })
  }
})
