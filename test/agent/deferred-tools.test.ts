/**
 * Deferred tools: which tools are held back past the tool definitions budget, in what order, how
 * search_tools finds and loads them, and that a paused run resumed with decisions sends the tool
 * it was waiting on up front. Real executor, real token counts; the engine tests drive the fake
 * provider.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import type { ApprovalMode } from "../../src/agent/approval.ts"
import { toolDefinitionsBudget } from "../../src/agent/deferred-tools.ts"
import { RunTools } from "../../src/agent/run-tools.ts"
import { MAX_SEARCH_RESULTS } from "../../src/agent/tool-search.ts"
import { StructuredToolResult, Tool, ToolParameter, ToolResultStatus, Toolset } from "../../src/core/tools.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import type { ToolSchema } from "../../src/llm/types.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { ask, engine } from "../support/engine.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { GuardedTool } from "../support/tools.ts"

/** A tool whose definition is about `words` words long. */
class SizedTool extends Tool {
  constructor(name: string, words: number, topic = "general") {
    super({
      name,
      description: `Reports on ${topic}. ${"detail ".repeat(words)}`.trim(),
      parameters: { target: new ToolParameter({ type: "string", description: `the ${topic} to inspect` }) },
    })
  }
  protected async invoke(params: Record<string, unknown>): Promise<StructuredToolResult> {
    return new StructuredToolResult({
      status: ToolResultStatus.SUCCESS,
      data: `${this.name} ${params.target}`,
    })
  }
}

const names = (schemas: readonly ToolSchema[]) => schemas.map((s) => s.function.name)

async function planFor(toolsets: Toolset[], budget: number) {
  const executor = new ToolExecutor(toolsets, { limits: DEFAULT_TOOL_LIMITS, env: {} })
  await executor.ensureReady()
  const counter = await TokenCounter.forModel("openai/gpt-4o")
  const run = new RunTools(executor, { counter, resultBudget: 1000, definitionsBudget: budget })
  return { run, counter, deferral: run.deferral, sent: await run.offer([]) }
}

describe("which tools are held back", () => {
  test("under the budget everything is sent and there is no search tool", async () => {
    const { sent, deferral } = await planFor(
      [new Toolset({ name: "a", tools: [new SizedTool("a1", 5)] })],
      1000,
    )
    expect(names(sent)).toEqual(["a1"])
    expect(deferral.report()).toBeUndefined()
  })

  test("deferFirst toolsets go first, then the largest definitions; core tools never", async () => {
    const mcp = new Toolset({
      name: "mcp/grafana",
      deferFirst: true,
      tools: [new SizedTool("mcp_small", 2), new SizedTool("mcp_other", 2)],
    })
    const local = new Toolset({
      name: "local",
      tools: [new SizedTool("huge", 300), new SizedTool("medium", 60), new SizedTool("tiny", 1)],
    })
    const planning = new Toolset({ name: "core_investigation", tools: [new SizedTool("TodoWrite", 200)] })
    const { sent, counter, deferral } = await planFor([mcp, local, planning], 650)
    const sentNames = names(sent)
    expect(sentNames).toContain("TodoWrite") // larger than anything, but core
    expect(sentNames).toContain("search_tools")
    for (const held of ["mcp_small", "mcp_other", "huge"]) expect(sentNames).not.toContain(held)
    // The small MCP tools are held back while the larger local `medium` is still sent.
    expect(sentNames).toEqual(["medium", "tiny", "TodoWrite", "search_tools"])
    expect(counter.countTools(sent)).toBeLessThanOrEqual(650)
    expect(deferral.report()?.deferred).toBeGreaterThanOrEqual(3)
  })

  test("the search tool lists what it can load: tool names when they fit, else toolsets and counts", async () => {
    const many = Array.from({ length: 40 }, (_, i) => new SizedTool(`check_${i}`, 40))
    const big = await planFor([new Toolset({ name: "checks", tools: many })], 300)
    const search = big.sent.find((s) => s.function.name === "search_tools")
    expect(search?.function.description).toMatch(/checks \(\d+\)/)
    const few = await planFor([new Toolset({ name: "few", tools: [new SizedTool("only_one", 300)] })], 200)
    expect(few.sent.find((s) => s.function.name === "search_tools")?.function.description).toContain(
      "few: only_one",
    )
  })

  test("the budget is a share of the window", () => {
    expect(toolDefinitionsBudget(8000, 20)).toBe(1600)
    expect(toolDefinitionsBudget(4000, 20)).toBe(800)
  })
})

describe("search_tools", () => {
  test("ranks by name, then description and parameters, loads a bounded count, and loaded tools stay", async () => {
    const tools = [
      new SizedTool("pod_logs", 60, "pod logs"),
      new SizedTool("node_status", 30, "nodes"),
      ...Array.from({ length: 20 }, (_, i) => new SizedTool(`probe_${i}`, 30, "pod health")),
    ]
    const { run, deferral, counter } = await planFor([new Toolset({ name: "k8s", tools })], 400)
    const found = deferral.search("pod logs", 3)
    expect(found.found.map((e) => e.schema.function.name)[0]).toBe("pod_logs")
    expect(found.found).toHaveLength(3)
    // What search loads is bounded by the budget too: the rest is named as not loaded.
    const probes = deferral.search("probe", 50)
    expect(probes.found.length).toBeGreaterThan(0)
    expect(probes.skipped.length).toBeGreaterThan(0)
    const loaded = [...found.found, ...probes.found].map((e) => e.schema)
    expect(counter.countTools(loaded)).toBeLessThanOrEqual(400)
    const next = names(await run.offer([]))
    for (const entry of found.found) expect(next).toContain(entry.schema.function.name)
    // Already loaded: reported as such, not loaded twice.
    expect(deferral.search("pod_logs", 1).already).toEqual(["pod_logs"])
    expect(deferral.search("nothing-like-this", 3).found).toHaveLength(0)
    expect(deferral.report()?.loaded_by_search).toContain("pod_logs")
    expect(MAX_SEARCH_RESULTS).toBe(10)
  })
})

describe("through the engine", () => {
  let fake: FakeProvider
  beforeEach(async () => {
    fake = await startFakeProvider()
  })
  afterEach(async () => {
    await fake.stop()
  })

  const pause: ApprovalMode = { kind: "pause", sign: () => (call) => `sig-${call.id}` }
  const bulky = () =>
    new Toolset({
      name: "bulky",
      tools: Array.from({ length: 30 }, (_, i) => new SizedTool(`bulk_${i}`, 80)),
    })

  test("a paused call of a held-back tool: on resume that tool is sent up front", async () => {
    const guarded = new GuardedTool()
    const llm = engine(fake, {
      toolsets: [bulky(), new Toolset({ name: "ops", deferFirst: true, tools: [guarded] })],
      overrides: { contextWindow: 8000 },
    })
    // The model calls the held-back tool by name (listed in search_tools' description).
    fake.script({ toolCalls: [{ id: "r", name: "restart_service", arguments: { service: "nginx" } }] })
    const paused = await llm.run(ask("restart nginx"), { approval: pause })
    expect(paused.stop).toBe("approval")
    const [first] = fake.requests
    expect(((first?.body?.tools ?? []) as ToolSchema[]).map((t) => t.function.name)).not.toContain(
      "restart_service",
    )
    fake.script({ content: "restarted" })
    const resumed = await llm.run(paused.history, {
      approval: pause,
      decisions: [{ tool_call_id: "r", approved: true }],
    })
    expect(resumed.answer).toBe("restarted")
    expect(guarded.ran).toEqual(["nginx"])
    const last = fake.requests.at(-1)
    const sent = ((last?.body?.tools ?? []) as ToolSchema[]).map((t) => t.function.name)
    expect(sent).toContain("restart_service")
    expect(sent).toContain("search_tools")
  })
})
