/**
 * Issue 12 item 4: a small-window model (an 8B model on Ollama or llama.cpp) must be able to
 * answer with the built-in toolsets. Through the library face and the real engine: the output
 * reserve is a fifth of the window, the tool definitions past their budget are held back and
 * offered through search_tools, and truncation, paging and compaction keep every request in the
 * window. What the provider received is asserted request by request.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import type { LLMResult } from "../../src/agent/result.ts"
import type { ToolCallingLLM } from "../../src/agent/tool-calling-llm.ts"
import { buildInitialAskMessages, resolveSections } from "../../src/core/prompt.ts"
import { RequestError } from "../../src/errors.ts"
import type { ChatMessage } from "../../src/llm/types.ts"
import {
  type FakeProvider,
  type FakeStep,
  type RecordedRequest,
  startFakeProvider,
} from "../support/fake-provider.ts"
import {
  completions,
  fakeClusterTools,
  requestTokens,
  type SmallWindow,
  smallConfig,
  toolNames,
} from "./small-window-support.ts"

let tools: SmallWindow
let fake: FakeProvider
beforeAll(() => {
  tools = fakeClusterTools()
})
afterAll(() => tools.cleanup())
/** The model's scripted steps, shared by the fake's step functions (see scriptSteps). */
const queue: FakeStep[] = []
beforeEach(async () => {
  queue.length = 0
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

const QUESTION = "Why is pod api-7d9 in namespace shop crashing?"
const LEAN = "intro,ask_user,general_instructions"

async function start(
  window: number,
  env: Record<string, string> = {},
): Promise<{ llm: ToolCallingLLM; messages: ChatMessage[] }> {
  const config = smallConfig(fake, tools, window, env)
  const llm = config.createConsoleToolCallingLLM()
  const messages = await buildInitialAskMessages({
    initialUserPrompt: QUESTION,
    toolExecutor: llm.toolExecutor,
    sections: resolveSections(config.enabledPrompts),
  })
  return { llm, messages }
}

/** Every request the provider got, with its output reserve, fits in the window. */
async function expectEveryRequestFits(window: number, reserve: number): Promise<void> {
  for (const request of completions(fake)) {
    const { total } = await requestTokens(request)
    expect(total + reserve).toBeLessThanOrEqual(window)
  }
}

/** The compaction call is the one sent without tools. */
const isCompaction = (request: RecordedRequest) => request.body?.tools === undefined

/**
 * Scripts the model's steps; a compaction call in between (when the window asks for one) gets a
 * summary and does not use up a step.
 */
function scriptSteps(...steps: FakeStep[]): void {
  queue.push(...steps)
  const summary = {
    content: "<analysis>a</analysis><summary>The pod api-7d9 crashes; logs were read.</summary>",
  }
  const next = (request: RecordedRequest): FakeStep =>
    isCompaction(request) ? summary : (queue.shift() ?? { content: "script exhausted" })
  fake.script(...Array.from({ length: steps.length + 2 }, () => next))
}

/** Search, read the logs (cut), page through them for the error, answer. */
function scriptInvestigation(): void {
  scriptSteps(
    { toolCalls: [{ id: "find", name: "search_tools", arguments: { query: "pod logs" } }] },
    { toolCalls: [{ id: "logs", name: "fetch_pod_logs", arguments: { pod: "api-7d9", namespace: "shop" } }] },
    {
      toolCalls: [
        { id: "page", name: "read_tool_output", arguments: { tool_call_id: "logs", pattern: "FATAL" } },
      ],
    },
    { content: "The pod cannot reach postgres:5432." },
  )
}

async function expectInvestigation(result: LLMResult, window: number, reserve: number): Promise<void> {
  expect(result.result).toBe("The pod cannot reach postgres:5432.")
  expect(result.metadata?.max_output_tokens).toBe(reserve)
  const [first, second, third, fourth] = completions(fake).filter((r) => !isCompaction(r))
  if (!first || !second || !third || !fourth) throw new Error("expected four model calls")
  // Up front: the core tools, the search tool, and only as many others as the budget allows.
  expect(toolNames(first)).toContain("TodoWrite")
  expect(toolNames(first)).toContain("search_tools")
  expect(toolNames(first)).not.toContain("fetch_pod_logs")
  expect(toolNames(first).length).toBeLessThan(37)
  expect((await requestTokens(first)).tools).toBeLessThanOrEqual(window / 5)
  const search = ((first.body?.tools ?? []) as { function: { name: string; description: string } }[]).find(
    (t) => t.function.name === "search_tools",
  )
  expect(search?.function.description).toContain("kubernetes/logs")
  // The searched tool joins the next request and stays; paging joins once an output was cut.
  expect(toolNames(second)).toContain("fetch_pod_logs")
  expect(toolNames(third)).toContain("fetch_pod_logs")
  expect(toolNames(third)).toContain("read_tool_output")
  expect(result.metadata?.truncations?.map((t) => t.tool_call_id)).toContain("logs")
  const logs = ((third.body?.messages ?? []) as ChatMessage[]).find(
    (m) => m.role === "tool" && m.tool_call_id === "logs",
  )
  expect(String(logs?.content)).toContain("[TRUNCATED]")
  const page = ((fourth.body?.messages ?? []) as ChatMessage[]).find(
    (m) => m.role === "tool" && m.tool_call_id === "page",
  )
  expect(String(page?.content)).toContain("FATAL: connection refused to postgres:5432")
  expect(result.metadata?.deferred_tools?.loaded_by_search).toContain("fetch_pod_logs")
  expect(result.metadata?.deferred_tools?.deferred).toBeGreaterThan(0)
  await expectEveryRequestFits(window, reserve)
}

/** A structured answer (response_format) in a small window. */
async function structuredAnswer(window: number, reserve: number, env: Record<string, string> = {}) {
  const { llm, messages } = await start(window, env)
  fake.script({ content: "not json" }, { content: '{"cause":"database down"}' })
  const responseFormat = {
    type: "json_schema" as const,
    json_schema: {
      name: "diagnosis",
      strict: true,
      schema: { type: "object", properties: { cause: { type: "string" } }, required: ["cause"] },
    },
  }
  const validateAnswer = (answer: string) => {
    try {
      JSON.parse(answer)
      return undefined
    } catch {
      return "not JSON"
    }
  }
  const result = await llm.call(messages, { responseFormat, validateAnswer })
  expect(JSON.parse(result.result ?? "")).toEqual({ cause: "database down" })
  const requests = completions(fake)
  expect(requests).toHaveLength(2) // the invalid answer was sent back for a correction
  for (const request of requests) {
    expect(request.body?.response_format).toBeDefined()
    expect(toolNames(request)).toContain("search_tools")
  }
  await expectEveryRequestFits(window, reserve)
}

describe("an 8k window with the default toolsets and prompt", () => {
  test("answers: search_tools loads fetch_pod_logs for the next step, its cut output is paged, every request fits", async () => {
    const { llm, messages } = await start(8000)
    scriptInvestigation()
    await expectInvestigation(await llm.call(messages), 8000, 1600)
  })

  test("structured output: an invalid answer is corrected, the JSON comes back, every request fits", async () => {
    await structuredAnswer(8000, 1600)
  })

  test("a follow-up that no longer fits is compacted; tools used earlier are sent up front", async () => {
    const { llm, messages } = await start(8000)
    scriptInvestigation()
    const first = await llm.call(messages)
    const history = first.messages ?? []
    // A long second turn: the earlier output pasted back by the user pushes it over the threshold.
    const pasted = "2026-11-23T10:00:00Z GET /api/orders 200 in 12ms from 10.0.0.1\n".repeat(50)
    history.push({ role: "user", content: `Here are more logs:\n${pasted}\nAnd is the database the cause?` })
    const before = completions(fake).length
    scriptSteps({ content: "Yes: postgres refuses connections." })
    const events: string[] = []
    const second = await llm.run(history, {}, (e) => events.push(e.event))
    expect(second.answer).toBe("Yes: postgres refuses connections.")
    expect(events).toContain("conversation_history_compacted")
    expect(second.metadata.compaction?.count).toBe(1)
    const [summary, answer] = completions(fake).slice(before)
    expect(summary && isCompaction(summary)).toBe(true)
    expect(summary?.body?.tools).toBeUndefined()
    // fetch_pod_logs was called in the history: it is sent from the first request of the follow-up.
    expect(toolNames(answer!)).toContain("fetch_pod_logs")
    expect(toolNames(answer!)).toContain("search_tools")
    await expectEveryRequestFits(8000, 1600)
  })
})

describe("a 4k window with a lean prompt", () => {
  test("structured output: an invalid answer is corrected, the JSON comes back, every request fits", async () => {
    await structuredAnswer(4000, 800, { ENABLED_PROMPTS: LEAN })
  })

  test("answers the same investigation: search, cut output, compaction, paging, every request fits", async () => {
    const { llm, messages } = await start(4000, { ENABLED_PROMPTS: LEAN })
    scriptInvestigation()
    const result = await llm.call(messages)
    // On 4k the investigation passes the threshold: the history is compacted mid-run, and paging
    // still reads the full output of the call whose result now lives in the summary.
    expect(result.metadata?.compaction?.count).toBe(1)
    await expectInvestigation(result, 4000, 800)
  })

  test("with the full prompt in a 1.5k window the refusal names what to change", async () => {
    // 2k now fits (the held-back toolsets' instructions wait for search_tools); 1.5k does not.
    const { llm, messages } = await start(1500)
    const run = llm.call(messages)
    await expect(run).rejects.toBeInstanceOf(RequestError)
    for (const knob of ["context_window", "limits.tool_definitions_budget_pct", "ENABLED_PROMPTS"])
      await expect(run).rejects.toThrow(knob)
    expect(completions(fake)).toHaveLength(0)
  })
})
