/**
 * The small-window behaviour (issue 12 item 4) through the other two faces, which share the engine
 * door: the HTTP API (JSON with a structured answer, and SSE) on the real server, and `dupin ask`
 * as a subprocess, each with an 8k model and the built-in toolsets.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import { cliEnv, runCli, SUBPROCESS_TIMEOUT_MS, tempFile } from "../cli/support.ts"
import { eventOf, type Harness, startHarness } from "../server/harness.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import {
  completions,
  fakeClusterTools,
  requestTokens,
  SMALL_MODEL,
  type SmallWindow,
  toolNames,
} from "./small-window-support.ts"

let tools: SmallWindow
beforeAll(() => {
  tools = fakeClusterTools()
})
afterAll(() => tools.cleanup())

const WINDOW = 8000
const RESERVE = 1600

async function expectFits(fake: FakeProvider, model = SMALL_MODEL): Promise<void> {
  const requests = completions(fake)
  // Up front the tool definitions keep to their budget; tools loaded by search come on top.
  expect((await requestTokens(requests[0]!, model)).tools).toBeLessThanOrEqual(WINDOW / 5)
  for (const request of requests) {
    const { total } = await requestTokens(request, model)
    expect(total + RESERVE).toBeLessThanOrEqual(WINDOW)
  }
}

const SEARCH_THEN_LOGS = [
  { toolCalls: [{ id: "find", name: "search_tools", arguments: { query: "fetch_pod_logs" } }] },
  { toolCalls: [{ id: "logs", name: "fetch_pod_logs", arguments: { pod: "api-7d9", namespace: "shop" } }] },
]

describe("HTTP", () => {
  let h: Harness
  beforeAll(async () => {
    // The harness's model (openai/gpt-4o) with its window forced to 8k for every model.
    h = await startHarness({ env: { ...tools.env, OVERRIDE_MAX_CONTENT_SIZE: String(WINDOW) } })
  })
  afterAll(async () => {
    await h.stop()
  })
  afterEach(() => {
    h.fake.requests.length = 0
  })

  test("JSON with response_format: search, logs, a structured answer, every request fits", async () => {
    h.fake.script(...SEARCH_THEN_LOGS, { content: '{"cause":"postgres refuses connections"}' })
    const schema = { type: "object", properties: { cause: { type: "string" } }, required: ["cause"] }
    const res = await h.post({
      ask: "Why is pod api-7d9 in namespace shop crashing?",
      response_format: { type: "json_schema", json_schema: { name: "diagnosis", schema } },
    })
    const body = (await res.json()) as {
      analysis: string
      metadata: Record<string, unknown> & {
        deferred_tools: { loaded_by_search: string[] }
        truncations: { tool_call_id: string }[]
      }
    }
    expect(res.status).toBe(200)
    expect(JSON.parse(body.analysis)).toEqual({ cause: "postgres refuses connections" })
    expect(body.metadata.max_output_tokens).toBe(RESERVE)
    expect(body.metadata.deferred_tools.loaded_by_search).toContain("fetch_pod_logs")
    expect(body.metadata.truncations.map((t) => t.tool_call_id)).toContain("logs")
    const [first, second] = completions(h.fake)
    expect(toolNames(first!)).toContain("search_tools")
    expect(toolNames(first!)).not.toContain("fetch_pod_logs")
    expect(toolNames(second!)).toContain("fetch_pod_logs")
    await expectFits(h.fake, "openai/gpt-4o")
  })

  test("SSE: the same run streams, token_count metadata says what was deferred", async () => {
    h.fake.script(...SEARCH_THEN_LOGS, { content: "postgres refuses connections" })
    const { response, events } = await h.stream({ ask: "Why is pod api-7d9 in namespace shop crashing?" })
    expect(response.status).toBe(200)
    const end = events.find((e) => e.event === "ai_answer_end")
    expect(end?.data).toMatchObject({ analysis: "postgres refuses connections" })
    const counts = events.filter((e) => e.event === "token_count")
    const last = counts.at(-1)?.data as { metadata: { deferred_tools?: { loaded_by_search: string[] } } }
    expect(last.metadata.deferred_tools?.loaded_by_search).toEqual(["fetch_pod_logs"])
    await expectFits(h.fake, "openai/gpt-4o")
  })

  test("approval pause and signed resume: the history handed back, its system prompt fitted to the plan, verifies", async () => {
    h.fake.script({ toolCalls: [{ id: "r1", name: "restart", arguments: { service: "web" } }] })
    const paused = await h.stream({ ask: "restart web", enable_tool_approval: true })
    const history = eventOf(paused.events, "approval_required").conversation_history
    // The held-back kubernetes toolsets kept only their headings in the prompt the model saw.
    const system = String(history[0]?.content)
    expect(system).toContain("## kubernetes/core")
    expect(system).toContain("search_tools loads them with this toolset's instructions")
    h.fake.script({ content: "restarted" })
    const resumed = await h.stream({
      conversation_history: history,
      tool_decisions: [{ tool_call_id: "r1", approved: true }],
    })
    expect(resumed.response.status).toBe(200)
    expect(eventOf(resumed.events, "ai_answer_end").analysis).toBe("restarted")
  })
})

describe("CLI", () => {
  test(
    "dupin ask with an 8k model: search_tools, then the searched tool, then the answer",
    async () => {
      const fake = await startFakeProvider()
      try {
        const config = tempFile(
          "config.yaml",
          `model: small\nmodelList:\n  small:\n    model: ${SMALL_MODEL}\n    api_key: test\n    api_base: ${fake.url}\n    context_window: ${WINDOW}\n`,
        )
        fake.script(...SEARCH_THEN_LOGS, { content: "postgres refuses connections" })
        const env = { ...cliEnv(), PATH: tools.env.PATH ?? "" }
        const result = await runCli(["ask", "why is api-7d9 crashing?", "--config", config, "--json"], {
          env,
        })
        expect(result.stderr).toContain("✓ fetch_pod_logs(pod=api-7d9, namespace=shop)")
        expect(result.code).toBe(0)
        const body = JSON.parse(result.stdout)
        expect(body.analysis).toBe("postgres refuses connections")
        expect(body.metadata.deferred_tools.loaded_by_search).toEqual(["fetch_pod_logs"])
        const [first, second] = completions(fake)
        expect(toolNames(first!)).toContain("search_tools")
        expect(toolNames(second!)).toContain("fetch_pod_logs")
        await expectFits(fake)
      } finally {
        await fake.stop()
      }
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
