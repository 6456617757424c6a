/**
 * Issue 12 item 4, review: on a small window the instructions of a toolset whose tools are all
 * held back are not sent up front; search_tools returns them with the first of its tools it loads,
 * and a follow-up that sends one of its tools up front gets them back in the system prompt. Through
 * the engine door with the built-in toolsets and the fake provider.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import { buildInitialAskMessages, resolveSections } from "../../src/core/prompt.ts"
import type { ChatMessage } from "../../src/llm/types.ts"
import { type FakeProvider, type RecordedRequest, startFakeProvider } from "../support/fake-provider.ts"
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
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

async function start(window: number) {
  const config = smallConfig(fake, tools, window)
  const llm = config.createConsoleToolCallingLLM()
  const messages = await buildInitialAskMessages({
    initialUserPrompt: "Why is pod api-7d9 in namespace shop crashing?",
    toolExecutor: llm.toolExecutor,
    sections: resolveSections(config.enabledPrompts),
  })
  const instructions = (name: string) => {
    const text = llm.toolExecutor.toolsets.find((t) => t.name === name)?.llmInstructions?.trim()
    if (!text) throw new Error(`${name} has no instructions`)
    return text
  }
  return { llm, messages, instructions }
}

const systemOf = (r: RecordedRequest | undefined) =>
  String(((r?.body?.messages ?? []) as ChatMessage[])[0]?.content ?? "")
const toolMessage = (r: RecordedRequest | undefined, id: string) =>
  String(
    ((r?.body?.messages ?? []) as ChatMessage[]).find((m) => m.role === "tool" && m.tool_call_id === id)
      ?.content ?? "",
  )

describe("toolset instructions on a small window", () => {
  test("8k: held-back toolsets' instructions wait for search_tools; a follow-up that sends their tools restores them", async () => {
    const { llm, messages, instructions } = await start(8000)
    const logs = instructions("kubernetes/logs")
    const core = instructions("kubernetes/core")
    const helm = instructions("helm/core")
    expect(String(messages[0]?.content)).toContain(logs)
    fake.script(
      { toolCalls: [{ id: "find", name: "search_tools", arguments: { query: "fetch_pod_logs" } }] },
      {
        toolCalls: [{ id: "logs", name: "fetch_pod_logs", arguments: { pod: "api-7d9", namespace: "shop" } }],
      },
      { content: "postgres is down" },
    )
    const first = await llm.call(messages)
    expect(first.result).toBe("postgres is down")
    const [one, two] = completions(fake)
    if (!one || !two) throw new Error("expected two model calls")
    expect(toolNames(one)).not.toContain("fetch_pod_logs")
    // Up front: the headings of the held-back toolsets, not their instructions; the others whole.
    const sent = systemOf(one)
    expect(sent).not.toContain(logs)
    expect(sent).not.toContain(core)
    expect(sent).toContain("## kubernetes/logs")
    expect(sent).toContain("search_tools loads them with this toolset's instructions")
    expect(sent).toContain(helm)
    expect((await requestTokens(one)).total).toBeLessThan(
      (await requestTokens({ ...one, body: { ...one.body, messages } })).total,
    )
    // The search returns them with the tool, once; the prompt stays the same for the whole run.
    // Before the fence that marks tool output as untrusted data: they are dupin's own configuration.
    const found = toolMessage(two, "find")
    expect(found).toContain("Instructions for the kubernetes/logs toolset")
    expect(found.indexOf(logs)).toBeGreaterThanOrEqual(0)
    expect(found.indexOf(logs)).toBeLessThan(found.indexOf("<<<tool_output"))
    expect(toolMessage(completions(fake)[2], "logs")).not.toContain(logs)
    for (const r of completions(fake)) expect(systemOf(r)).toBe(sent)
    // The history handed back carries the prompt the model saw.
    expect(first.messages?.[0]?.content).toBe(sent)

    // A follow-up: fetch_pod_logs was used, so it is sent up front, and its instructions return.
    const history = [...(first.messages ?? []), { role: "user", content: "And the database?" } as ChatMessage]
    const before = completions(fake).length
    fake.script({ content: "also down" })
    await llm.call(history)
    const [next] = completions(fake).slice(before)
    if (!next) throw new Error("expected a model call")
    expect(toolNames(next)).toContain("fetch_pod_logs")
    expect(systemOf(next)).toContain(logs)
    expect(systemOf(next)).not.toContain(core)
  })

  test("8k: a held-back tool called by name brings its toolset's instructions with its first result, once", async () => {
    const { llm, messages, instructions } = await start(8000)
    const logs = instructions("kubernetes/logs")
    const call = (id: string) => ({
      toolCalls: [{ id, name: "fetch_pod_logs", arguments: { pod: "api-7d9", namespace: "shop" } }],
    })
    fake.script(call("a"), call("b"), { content: "done" })
    await llm.call(messages)
    const requests = completions(fake)
    const first = toolMessage(requests[1], "a")
    expect(first.indexOf(logs)).toBeGreaterThanOrEqual(0)
    expect(first.indexOf(logs)).toBeLessThan(first.indexOf("<<<tool_output"))
    expect(toolMessage(requests.at(-1), "b")).not.toContain(logs)
  })

  test("128k: nothing is held back and the system prompt is sent as built", async () => {
    const { llm, messages } = await start(128_000)
    fake.script({ content: "fine" })
    await llm.call(messages)
    const [one] = completions(fake)
    if (!one) throw new Error("expected a model call")
    expect(systemOf(one)).toBe(String(messages[0]?.content))
  })

  test("a system prompt the caller wrote is never rewritten", async () => {
    const { llm, messages } = await start(8000)
    const own: ChatMessage[] = [{ role: "system", content: "You are terse." }, ...messages.slice(1)]
    fake.script({ content: "fine" })
    await llm.call(own)
    expect(systemOf(completions(fake)[0])).toBe("You are terse.")
  })
})
