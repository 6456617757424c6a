import { describe, expect, test } from "bun:test"
import type { StreamMessage } from "../../src/agent/events.ts"
import { DEFAULT_CONTEXT_SETTINGS, toolResultBudget } from "../../src/context/limits.ts"
import { OutputStore } from "../../src/context/output-store.ts"
import { cutToolMessage } from "../../src/context/tool-result.ts"
import { TRUNCATION_MARKER } from "../../src/context/truncate.ts"
import { ContextWindow } from "../../src/context/window.ts"
import { RequestError } from "../../src/errors.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import type {
  ChatMessage,
  ChatModel,
  Completion,
  ModelInfo,
  ToolMessage,
  ToolSchema,
} from "../../src/llm/types.ts"

/** Seeded PRNG (mulberry32): a failure names its seed and replays exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = [
  "pod",
  "node",
  "error",
  "restart",
  "killed",
  "latency",
  "default",
  "ok",
  "timeout",
  "ready",
  "kube-system",
]

function text(rand: () => number, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]!)
  return out.join(rand() < 0.1 ? "\n" : " ")
}

/** A model that answers the compaction call with a summary of random length. */
function scriptedModel(info: ModelInfo, rand: () => number): ChatModel {
  return {
    name: "scripted",
    info,
    async complete(): Promise<Completion> {
      const summary = text(rand, Math.floor(rand() * 400))
      return {
        content: `<analysis>${text(rand, 20)}</analysis><summary>${summary}</summary>`,
        reasoning: null,
        toolCalls: [],
        finishReason: "stop",
        usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
      }
    },
  }
}

type Case = {
  history: ChatMessage[]
  latest: ChatMessage
  window: ContextWindow
  store: OutputStore
  info: ModelInfo
}

async function generate(seed: number, counter: TokenCounter): Promise<Case> {
  const rand = prng(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const info: ModelInfo = {
    id: "openai/gpt-4o",
    provider: "openai",
    contextWindow: pick([1500, 4000, 8000]),
    maxOutputTokens: pick([200, 500]),
    supportsVision: true,
    inputCostPerToken: 0,
    outputCostPerToken: 0,
    known: true,
  }
  const store = new OutputStore()
  const window = new ContextWindow({
    model: scriptedModel(info, rand),
    counter,
    settings: DEFAULT_CONTEXT_SETTINGS,
    store,
  })
  const budget = toolResultBudget(info.contextWindow, DEFAULT_CONTEXT_SETTINGS)
  // As the run builds a result's message: cut to its budget, the full text kept for paging.
  const capped = async (raw: ToolMessage, name: string): Promise<ToolMessage> => {
    const cut = await cutToolMessage(raw, name, budget, counter)
    if (cut.full !== undefined) store.put(raw.tool_call_id, name, cut.full)
    return cut.message
  }
  const history: ChatMessage[] = [{ role: "system", content: text(rand, 5 + Math.floor(rand() * 100)) }]
  let latest: ChatMessage = history[0]!
  let id = 0
  const turns = 1 + Math.floor(rand() * 5)
  for (let t = 0; t < turns; t++) {
    // Now and then a question too large for the window, to exercise the RequestError path.
    latest = { role: "user", content: text(rand, rand() < 0.04 ? 9000 : 1 + Math.floor(rand() * 150)) }
    history.push(latest)
    const rounds = Math.floor(rand() * 4)
    for (let r = 0; r < rounds; r++) {
      const calls = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
        id: `call_${++id}`,
        type: "function" as const,
        function: {
          name: pick(["kubectl_get", "fetch_pod_logs", "kubectl_events"]),
          arguments: `{"n":${id}}`,
        },
      }))
      history.push({ role: "assistant", content: rand() < 0.3 ? text(rand, 10) : null, tool_calls: calls })
      for (const call of calls) {
        const size = rand() < 0.2 ? 800 + Math.floor(rand() * 1200) : Math.floor(rand() * 250)
        const raw: ToolMessage = {
          role: "tool",
          tool_call_id: call.id,
          name: call.function.name,
          content: text(rand, size),
        }
        // Results made in this run are capped; a client-sent history may carry anything.
        history.push(rand() < 0.5 ? await capped(raw, call.function.name) : raw)
      }
    }
    // The last turn may stop mid tool-calls (the loop is about to call the model again).
    if (t < turns - 1 || rand() < 0.3) history.push({ role: "assistant", content: text(rand, 30) })
  }
  return { history, latest, window, store, info }
}

function checkPairing(messages: readonly ChatMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    if (m.role === "tool") {
      // A tool message answers a call of the assistant message that opens its block.
      let j = i - 1
      while (messages[j]?.role === "tool") j--
      const owner = messages[j]
      expect(owner?.role).toBe("assistant")
      if (owner?.role !== "assistant") return
      expect(owner.tool_calls?.some((c) => c.id === m.tool_call_id)).toBe(true)
    }
    if (m.role === "assistant" && m.tool_calls?.length) {
      const answered = new Set<string>()
      for (let j = i + 1; messages[j]?.role === "tool"; j++) {
        const r = messages[j]
        if (r?.role === "tool") answered.add(r.tool_call_id)
      }
      for (const call of m.tool_calls) expect(answered.has(call.id)).toBe(true)
    }
  }
}

describe("fit: property over random histories", () => {
  test("pairing holds, the latest request stays verbatim, and the result fits the window", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4o")
    const tools: ToolSchema[] = []
    let compacted = 0
    let refused = 0
    let cut = 0
    for (let seed = 1; seed <= 300; seed++) {
      const { history, latest, window, store, info } = await generate(seed, counter)
      const events: StreamMessage[] = []
      try {
        const gen = window.fit(history, tools, new AbortController().signal)
        let step = await gen.next()
        while (!step.done) {
          events.push(step.value)
          step = await gen.next()
        }
        const { messages } = step.value
        checkPairing(messages)
        const users: ChatMessage[] = messages.filter((m) => m.role === "user")
        expect(users.at(-1)).toEqual(latest)
        expect(messages[0]).toEqual(history[0]!)
        expect(counter.tally(messages, tools).total_tokens + info.maxOutputTokens).toBeLessThanOrEqual(
          info.contextWindow,
        )
        for (const m of messages) {
          if (m.role === "tool" && m.content.includes("[Output cut in line ")) {
            expect(m.content.endsWith(TRUNCATION_MARKER)).toBe(true)
            cut++
          }
        }
        if (step.value.compaction) {
          compacted++
          // Compaction ends under the threshold unless the system prompt and question alone are over it.
          const limit = Math.floor(info.contextWindow * 0.95)
          const fixed = counter.tally([history[0]!, latest]).total_tokens
          if (fixed + info.maxOutputTokens <= limit - 100) {
            expect(counter.tally(messages, tools).total_tokens + info.maxOutputTokens).toBeLessThanOrEqual(
              limit,
            )
          }
          expect(events.map((e) => e.event)).toEqual([
            "conversation_history_compaction_start",
            "conversation_history_compacted",
          ])
          const done = events[1]
          if (done?.event !== "conversation_history_compacted") throw new Error("no compacted event")
          expect(done.data.messages).toEqual(messages)
          expect(done.data.metadata.num_messages_after).toBe(messages.length)
        }
      } catch (error) {
        if (!(error instanceof RequestError)) throw new Error(`seed ${seed}: ${error}`)
        refused++
        const fixed = counter.tally([history[0]!, latest]).total_tokens
        expect(fixed).toBeGreaterThan(info.contextWindow - info.maxOutputTokens)
      } finally {
        await store.dispose()
      }
    }
    // The generator must actually exercise every path.
    expect(compacted).toBeGreaterThan(30)
    expect(refused).toBeGreaterThan(0)
    expect(cut).toBeGreaterThan(10)
  })
})
