/**
 * One run's tools over the engine's shared executor: the run's own tools (read_tool_output,
 * search_tools, frontend tools) join that run only, come first, and the store of cut outputs they
 * page lives and dies with the run.
 */
import { describe, expect, test } from "bun:test"
import { RunTools } from "../../src/agent/run-tools.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import type { ToolSchema } from "../../src/llm/types.ts"
import { READ_TOOL_OUTPUT } from "../../src/tool/core-names.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { StructuredToolResult, ToolResultStatus } from "../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import { Toolset } from "../../src/tool/toolset.ts"
import { EchoTool } from "../support/tools.ts"

const env = buildToolEnv(process.env)
const counter = await TokenCounter.forModel("openai/gpt-4o")
const names = (schemas: readonly ToolSchema[]) => schemas.map((s) => s.function.name)

async function sharedExecutor(): Promise<ToolExecutor> {
  const shared = new ToolExecutor([new Toolset({ name: "configured", tools: [new EchoTool()] })], {
    limits: DEFAULT_TOOL_LIMITS,
    env,
  })
  await shared.ensureReady()
  return shared
}

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({
  id,
  type: "function" as const,
  function: { name, arguments: JSON.stringify(args) },
})

describe("a run's tools over the shared executor", () => {
  test("a run-scoped toolset joins that run's tools first and never the shared executor", async () => {
    const shared = await sharedExecutor()
    const run = new RunTools(shared, { counter, resultBudget: 1000, definitionsBudget: 10_000 })
    // Until the run adds a tool it answers from the shared caches (same array: token counts stay cached).
    expect(run.schemas()).toBe(shared.schemas())

    // Same name as the configured tool: the run's own one must win, as the truncation notes point to it.
    const own = new EchoTool()
    await run.add(new Toolset({ name: "run/own", tools: [own] }))
    expect(run.offeredTools.echo).toBe(own)
    expect(run.prepare(call("c1", "echo", { text: "hi" })).tool).toBe(own)
    expect(run.schemas()).toHaveLength(1)
    expect(shared.toolsByName.echo).not.toBe(own)
    expect(shared.toolsets.map((t) => t.name)).toEqual(["configured"])
    expect(
      new RunTools(shared, { counter, resultBudget: 1000, definitionsBudget: 10_000 }).offeredTools.echo,
    ).not.toBe(own)
  })

  test("read_tool_output joins once a result was cut, pages what was kept, and dispose removes it", async () => {
    const shared = await sharedExecutor()
    const run = new RunTools(shared, { counter, resultBudget: 100, definitionsBudget: 10_000 })
    expect(names(await run.offer([]))).toEqual(["echo"])

    const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n")
    const result = new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: lines })
    const cut = await run.toolMessage(call("big", "echo"), result)
    expect(cut.truncation?.tool_name).toBe("echo")
    expect(run.store.has("big")).toBe(true)

    const offered = names(await run.offer([]))
    expect(offered).toEqual([READ_TOOL_OUTPUT, "echo"])
    // Offered once: a second cut adds nothing.
    await run.toolMessage(call("big2", "echo"), result)
    expect(names(await run.offer([]))).toEqual(offered)
    expect(names(shared.schemas())).toEqual(["echo"])

    const paging = run.prepare(
      call("p", READ_TOOL_OUTPUT, { tool_call_id: "big", start_line: 402, max_lines: 1 }),
    )
    const page = await run.run(paging, new AbortController().signal, false)
    expect(page.dataText()).toContain("line 400")

    await run.dispose()
    expect(run.store.size).toBe(0)
  })

  test("frontend tools are offered after dupin's and their calls are the client's", async () => {
    const shared = await sharedExecutor()
    const frontend: ToolSchema = {
      type: "function",
      function: { name: "open_dashboard", description: "Opens a dashboard", parameters: { type: "object" } },
    }
    const run = new RunTools(shared, {
      counter,
      resultBudget: 1000,
      definitionsBudget: 10_000,
      frontend: [frontend],
    })
    expect(names(await run.offer([]))).toEqual(["echo", "open_dashboard"])
    expect(run.isFrontend("open_dashboard")).toBe(true)
    expect(run.isFrontend("echo")).toBe(false)
    expect(run.prepare(call("f", "open_dashboard")).tool).toBeUndefined()
  })
})
