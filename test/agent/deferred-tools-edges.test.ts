/**
 * Deferred tools at their edges, through the real engine and the fake provider: what a small model
 * (or a hostile one) can do with search_tools, a held-back tool called without searching, a
 * toolset that failed its prerequisites, tools that arrive mid-run (an MCP server's list_changed),
 * parallel searches, and the budget key at its bounds.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { StructuredToolResult, Tool, ToolParameter, ToolResultStatus, Toolset } from "../../src/core/tools.ts"
import { RequestError } from "../../src/errors.ts"
import type { ChatMessage, ToolSchema } from "../../src/llm/types.ts"
import { StaticPrerequisite } from "../../src/tool/prerequisite.ts"
import { ask, engine } from "../support/engine.ts"
import { type FakeProvider, type RecordedRequest, startFakeProvider } from "../support/fake-provider.ts"

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

/** 30 tools of ~100 tokens: about 3,000 tokens of definitions, past an 8k window's 1,600. */
const bulky = () =>
  new Toolset({ name: "bulky", tools: Array.from({ length: 30 }, (_, i) => new SizedTool(`bulk_${i}`, 80)) })

const toolNames = (r: RecordedRequest | undefined) =>
  ((r?.body?.tools ?? []) as ToolSchema[]).map((t) => t.function.name)
const toolMessage = (r: RecordedRequest | undefined, id: string) =>
  String(
    ((r?.body?.messages ?? []) as ChatMessage[]).find((m) => m.role === "tool" && m.tool_call_id === id)
      ?.content ?? "",
  )
const search = (id: string, query: unknown) => ({ id, name: "search_tools", arguments: { query } })

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})
const small = (toolsets: Toolset[], pct?: number) =>
  engine(fake, {
    toolsets,
    overrides: { contextWindow: 8000 },
    ...(pct !== undefined
      ? {
          context: {
            toolResultPct: 15,
            toolResultMaxTokens: 25_000,
            compactionThresholdPct: 95,
            toolDefinitionsPct: pct,
          },
        }
      : {}),
  })

describe("search_tools queries", () => {
  test("an empty query says so; a 3 kB regex-hostile query is searched in part and not echoed back whole", async () => {
    const llm = small([bulky()])
    const hostile = `${"(a+)+$[".repeat(400)} bulk_3`
    fake.script({ toolCalls: [search("empty", ""), search("huge", hostile)] }, { content: "done" })
    const result = await llm.run(ask("anything"))
    expect(result.answer).toBe("done")
    const second = fake.requests[1]
    expect(toolMessage(second, "empty")).toContain("An empty query matches no tool")
    const huge = toolMessage(second, "huge")
    // Only the first MAX_QUERY_CHARS are searched (bulk_3 is far past them), and the echo is cut.
    expect(huge).toContain("No tool matches")
    expect(huge.length).toBeLessThan(2_000)
  })

  test("two searches in one step both load their tools for the next request", async () => {
    const llm = small([bulky()])
    // Two tools the first request held back, searched by name in one step.
    let held: string[] = []
    fake.script(
      (request) => {
        const sent = toolNames(request)
        held = Array.from({ length: 30 }, (_, i) => `bulk_${i}`).filter((n) => !sent.includes(n))
        return { toolCalls: [search("s1", held[0]), search("s2", held.at(-1))] }
      },
      () => ({ toolCalls: [{ id: "c", name: held.at(-1) ?? "", arguments: { target: "x" } }] }),
      { content: "done" },
    )
    const result = await llm.run(ask("anything"))
    expect(result.answer).toBe("done")
    expect(held.length).toBeGreaterThan(1)
    const [a, b] = [held[0] ?? "", held.at(-1) ?? ""]
    expect(toolNames(fake.requests[1])).toEqual(expect.arrayContaining([a, b]))
    expect(toolMessage(fake.requests[2], "c")).toContain(`${b} x`)
    expect(result.metadata.deferred_tools?.loaded_by_search).toEqual([a, b])
  })
})

describe("what search cannot load, and held-back tools called by name", () => {
  test("a tool of a toolset that failed its prerequisites is neither found nor runnable", async () => {
    let ran = false
    const failed = new Toolset({
      name: "prometheus/metrics",
      prerequisites: [new StaticPrerequisite(false, "PROMETHEUS_URL is not set")],
      tools: [
        new (class extends SizedTool {
          protected override async invoke(): Promise<StructuredToolResult> {
            ran = true
            return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: "ran" })
          }
        })("execute_prometheus_query", 10, "prometheus metrics"),
      ],
    })
    const llm = small([bulky(), failed])
    fake.script(
      { toolCalls: [search("s", "prometheus query")] },
      { toolCalls: [{ id: "c", name: "execute_prometheus_query", arguments: { target: "up" } }] },
      { content: "done" },
    )
    const result = await llm.run(ask("anything"))
    expect(result.answer).toBe("done")
    expect(toolMessage(fake.requests[1], "s")).toContain("No tool matches")
    for (const r of fake.requests) expect(toolNames(r)).not.toContain("execute_prometheus_query")
    expect(toolMessage(fake.requests[2], "c")).toContain(
      "execute_prometheus_query was not run: toolset prometheus/metrics is unavailable (PROMETHEUS_URL is not set)",
    )
    expect(ran).toBe(false)
  })

  test("a held-back tool called without searching is validated exactly as a sent one, then runs and is sent", async () => {
    // Same call, wrong argument type: on 8k (held back) and 128k (sent) the tool result is the same.
    const results: string[] = []
    for (const window of [8000, 128_000]) {
      const llm = engine(fake, { toolsets: [bulky()], overrides: { contextWindow: window } })
      const before = fake.requests.length
      fake.script(
        { toolCalls: [{ id: "bad", name: "bulk_5", arguments: { target: 42 } }] },
        { toolCalls: [{ id: "ok", name: "bulk_5", arguments: { target: "db" } }] },
        { content: "done" },
      )
      await llm.run(ask("anything"))
      const [first, second, third] = fake.requests.slice(before)
      expect(toolNames(first).includes("bulk_5")).toBe(window !== 8000)
      results.push(toolMessage(second, "bad").replace(/id=[0-9a-f]+/g, "id=…"))
      expect(toolNames(second)).toContain("bulk_5")
      expect(toolMessage(third, "ok")).toContain("bulk_5 db")
    }
    expect(results[0]).toBe(results[1] ?? "")
    expect(results[0]).toContain("target")
  })
})

describe("tools that arrive mid-run (an MCP server's tools/list_changed)", () => {
  test("new tools of a deferFirst toolset are held back, listed by search_tools, found and called", async () => {
    const mcp = new Toolset({
      name: "mcp/grafana",
      deferFirst: true,
      tools: [new SizedTool("grafana_ping", 5)],
    })
    // The tool list changes while the first step's tool runs, as a list_changed notification would.
    class Trigger extends SizedTool {
      protected override async invoke(): Promise<StructuredToolResult> {
        mcp.replaceTools([
          new SizedTool("grafana_ping", 5),
          ...Array.from(
            { length: 30 },
            (_, i) => new SizedTool(`grafana_dash_${i}`, 80, "grafana dashboards"),
          ),
        ])
        return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: "changed" })
      }
    }
    const llm = small([new Toolset({ name: "ops", tools: [new Trigger("refresh", 5)] }), mcp])
    fake.script(
      { toolCalls: [{ id: "r", name: "refresh", arguments: { target: "x" } }] },
      { toolCalls: [search("s", "grafana_dash_4")] },
      { toolCalls: [{ id: "c", name: "grafana_dash_4", arguments: { target: "api" } }] },
      { content: "done" },
    )
    const result = await llm.run(ask("anything"))
    expect(result.answer).toBe("done")
    const [first, second, third, fourth] = fake.requests
    // Everything fit before the change: no search tool.
    expect(toolNames(first)).toEqual(expect.arrayContaining(["refresh", "grafana_ping"]))
    expect(toolNames(first)).not.toContain("search_tools")
    // After it: tools already sent stay, the new ones are held back and named by search_tools.
    expect(toolNames(second)).toEqual(expect.arrayContaining(["refresh", "grafana_ping", "search_tools"]))
    expect(toolNames(second).filter((n) => n.startsWith("grafana_dash_")).length).toBeLessThan(30)
    const described = ((second?.body?.tools ?? []) as ToolSchema[]).find(
      (t) => t.function.name === "search_tools",
    )
    expect(described?.function.description).toContain("mcp/grafana")
    expect(toolNames(third)).toContain("grafana_dash_4")
    expect(toolMessage(fourth, "c")).toContain("grafana_dash_4 api")
  })
})

describe("limits.tool_definitions_budget_pct at its bounds", () => {
  test("at 100 nothing is held back on an 8k window", async () => {
    const llm = small([bulky()], 100)
    fake.script({ content: "done" })
    const result = await llm.run(ask("anything"))
    expect(result.answer).toBe("done")
    expect(toolNames(fake.requests[0])).toHaveLength(30)
    expect(result.metadata.deferred_tools).toBeUndefined()
  })

  test("at 1 the core tools alone do not fit: refused before any model call, naming what to change", async () => {
    const planning = new Toolset({
      name: "core_investigation",
      tools: [new (class extends SizedTool {})("TodoWrite", 40, "the investigation plan")],
    })
    const llm = small([bulky(), planning], 1)
    const run = llm.run(ask("anything"))
    await expect(run).rejects.toBeInstanceOf(RequestError)
    await expect(run).rejects.toThrow(
      "limits.tool_definitions_budget_pct = 1% of the 8000-token context window",
    )
    await expect(run).rejects.toThrow("raise limits.tool_definitions_budget_pct to at least")
    await expect(run).rejects.toThrow("context_window")
    expect(fake.requests).toHaveLength(0)
  })
})

describe("a configured tool named search_tools", () => {
  test("is sent and runs while nothing is held back", async () => {
    const llm = engine(fake, {
      toolsets: [new Toolset({ name: "own", tools: [new SizedTool("search_tools", 5, "tickets")] })],
    })
    fake.script(
      { toolCalls: [{ id: "s", name: "search_tools", arguments: { target: "INC-1" } }] },
      { content: "done" },
    )
    await llm.run(ask("anything"))
    expect(toolNames(fake.requests[0])).toEqual(["search_tools"])
    expect(toolMessage(fake.requests[1], "s")).toContain("search_tools INC-1")
  })
})
