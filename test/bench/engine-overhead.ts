/**
 * Engine overhead per step: what `runAgent` costs beyond the provider round trip and the tools.
 *
 * A conversation of 30 tool steps (3 parallel in-process tools each) plus the answer, against an
 * instant fake provider in its own process. The same conversation also runs through a FLOOR: a
 * loop written directly on the `openai` client, same provider, same tool schemas, same messages,
 * same tool functions. Both go through one timed `fetch`, so "provider time" (request sent to
 * response body read) is measured identically; tool time is the wall time of each step's batch.
 *   overhead/step = (wall − provider − tools) / model calls
 * Runs alternate engine/floor, medians over rounds, at 0, 10 and 300 messages of prior history.
 */
import OpenAI from "openai"
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions"
import { ToolCallingLLM } from "../../src/agent/tool-calling-llm.ts"
import { StructuredToolResult, Tool, ToolParameter, ToolResultStatus, Toolset } from "../../src/core/tools.ts"
import { createChatModel } from "../../src/llm/factory.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import type { ChatMessage } from "../../src/llm/types.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { logLines, podTable, prng, yamlManifest } from "./support/corpus.ts"
import { startProviderProcess } from "./support/processes.ts"
import { type BenchReport, emit } from "./support/report.ts"
import { fmt, median, ratio } from "./support/stats.ts"

const STEPS = 30
const CALLS_PER_STEP = 3
const HISTORIES = [0, 10, 300]
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const WARMUP = 3

// Provider time: from the request leaving to its body fully read. Installed before any client is
// built, because the openai SDK captures `fetch` when it is constructed.
let providerMs = 0
const realFetch = globalThis.fetch
globalThis.fetch = Object.assign(
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const started = performance.now()
    const response = await realFetch(input, init)
    const body = await response.arrayBuffer()
    providerMs += performance.now() - started
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  },
  realFetch,
)

// Tool work: the same functions for engine and floor; each step's batch is timed from first start to last end.
const rand = prng(7)
// ~1.5 KB each: 30 steps x 3 results plus 300 messages of history stay well under gpt-4o's
// compaction threshold (95% of 128k), so the bench measures the loop, not compaction.
const OUTPUTS: Record<string, string> = {
  kubectl_get_pods: podTable(rand, 15),
  fetch_pod_logs: logLines(rand, 10),
  kubectl_get_yaml: yamlManifest(rand).slice(0, 1500),
}
let batchStart = Number.POSITIVE_INFINITY
let batchEnd = 0
let toolMs = 0
function work(name: string): string {
  const now = performance.now()
  if (now < batchStart) batchStart = now
  const out = OUTPUTS[name] ?? ""
  batchEnd = performance.now()
  return out
}
/** Closes the current step's batch into `toolMs`. */
function closeBatch(): void {
  if (batchEnd > batchStart) toolMs += batchEnd - batchStart
  batchStart = Number.POSITIVE_INFINITY
  batchEnd = 0
}

class BenchTool extends Tool {
  constructor(name: string) {
    super({
      name,
      description: `Bench tool ${name}`,
      parameters: { target: new ToolParameter({ type: "string", description: "what to look at" }) },
    })
  }
  protected async invoke(): Promise<StructuredToolResult> {
    return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: work(this.name) })
  }
}

function priorHistory(count: number): ChatMessage[] {
  const r = prng(count + 1)
  const out: ChatMessage[] = []
  let n = 0
  while (out.length < count) {
    out.push({ role: "user", content: `Why is the checkout service slow? (${n})` })
    const calls = Object.keys(OUTPUTS).map((name, i) => ({
      id: `hist_${n}_${i}`,
      type: "function" as const,
      function: { name, arguments: JSON.stringify({ target: `old-${n}-${i}` }) },
    }))
    out.push({ role: "assistant", content: null, tool_calls: calls })
    for (const call of calls) {
      out.push({ role: "tool", tool_call_id: call.id, name: call.function.name, content: logLines(r, 2) })
    }
    out.push({ role: "assistant", content: "The payments upstream resets connections; see the logs above." })
    n++
  }
  return out
    .slice(0, count)
    .filter((m, i, all) => !(i === all.length - 1 && m.role === "assistant" && m.tool_calls))
}

type Sample = { wallMs: number; providerMs: number; toolMs: number; calls: number; misses: number }
const overheadPerCall = (s: Sample) => (s.wallMs - s.providerMs - s.toolMs) / s.calls

async function main(): Promise<BenchReport> {
  const provider = await startProviderProcess({
    latencyMs: 0,
    steps: STEPS,
    calls: Object.keys(OUTPUTS).map((name, i) => ({ name, arguments: { target: `pod-${i}-{{step}}` } })),
  })
  try {
    const model = createChatModel({ id: "openai/gpt-4o", apiKey: "bench", apiBase: provider.url, env: {} })
    const tools = Object.keys(OUTPUTS).map((name) => new BenchTool(name))
    const executor = new ToolExecutor([new Toolset({ name: "bench", description: "bench tools", tools })], {
      limits: DEFAULT_TOOL_LIMITS,
      env: { PATH: process.env.PATH ?? "" },
    })
    await executor.ensureReady()
    const llm = new ToolCallingLLM({ model, toolExecutor: executor, maxSteps: STEPS + 5 })
    const client = new OpenAI({ apiKey: "bench", baseURL: provider.url, maxRetries: 0 })
    const schemas = executor.schemas() as unknown as ChatCompletionTool[]

    const counter = await TokenCounter.forModel("openai/gpt-4o")
    const measure = async (run: () => Promise<number>): Promise<Sample> => {
      providerMs = 0
      toolMs = 0
      const missesBefore = counter.stats.misses
      const started = performance.now()
      const calls = await run()
      const wallMs = performance.now() - started
      return { wallMs, providerMs, toolMs, calls, misses: counter.stats.misses - missesBefore }
    }

    const engineRun = (messages: ChatMessage[]) =>
      measure(async () => {
        let calls = 0
        for await (const event of llm.callStream(messages)) {
          if (event.event === "token_count") closeBatch()
          if (event.event === "ai_answer_end") calls = event.data.metadata.costs.num_llm_calls
        }
        closeBatch()
        if (calls !== STEPS + 1) throw new Error(`engine made ${calls} model calls, expected ${STEPS + 1}`)
        return calls
      })

    const floorRun = (initial: ChatMessage[]) =>
      measure(async () => {
        const messages = [...initial] as ChatCompletionMessageParam[]
        let calls = 0
        for (;;) {
          const completion = await client.chat.completions.create({
            model: "gpt-4o",
            messages,
            tools: schemas,
            tool_choice: "auto",
          })
          calls++
          const message = completion.choices[0]!.message
          messages.push(message)
          const toolCalls = message.tool_calls ?? []
          if (toolCalls.length === 0) break
          const results = await Promise.all(
            toolCalls.map(async (call) => {
              const name = call.type === "function" ? call.function.name : ""
              JSON.parse(call.type === "function" ? call.function.arguments : "{}")
              return { role: "tool" as const, tool_call_id: call.id, content: work(name) }
            }),
          )
          closeBatch()
          messages.push(...results)
        }
        if (calls !== STEPS + 1) throw new Error(`floor made ${calls} model calls, expected ${STEPS + 1}`)
        return calls
      })

    const rows: string[][] = []
    const perHistory: Array<{ history: number; engine: number; floor: number }> = []
    for (const history of HISTORIES) {
      const messages: ChatMessage[] = [
        { role: "system", content: "You are a troubleshooting agent. Use the tools, then answer." },
        ...priorHistory(history),
        { role: "user", content: "Find out why checkout pods restart." },
      ]
      const variants = [engineRun, floorRun]
      const samples: Sample[][] = [[], []]
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        // Rotate which goes first, so drift (GC debt, caches) hits every variant alike.
        for (let k = 0; k < variants.length; k++) {
          const i = (round + k) % variants.length
          const sample = await variants[i]!(messages)
          if (round >= WARMUP) samples[i]!.push(sample)
        }
      }
      const [engine, floor] = samples as [Sample[], Sample[]]
      const eo = median(engine.map(overheadPerCall))
      const fo = median(floor.map(overheadPerCall))
      perHistory.push({ history, engine: eo, floor: fo })
      rows.push([
        String(history),
        fmt(median(engine.map((s) => s.wallMs))),
        fmt(median(engine.map((s) => s.providerMs / s.calls)), 3),
        fmt(eo, 3),
        fmt(median(floor.map((s) => s.wallMs))),
        fmt(median(floor.map((s) => s.providerMs / s.calls)), 3),
        fmt(fo, 3),
        fmt(eo - fo, 3),
        fmt(ratio(eo, fo)),
        String(median(engine.map((s) => s.misses))),
      ])
    }

    const added = perHistory.map((h) => h.engine - h.floor)
    const flat = Math.max(...added) - Math.min(...added)
    const worst = Math.max(...added)
    return {
      name: "Engine overhead per step",
      method:
        `${STEPS} tool steps x ${CALLS_PER_STEP} parallel in-process tools + the answer (${STEPS + 1} model calls), ` +
        `instant fake provider in its own process, real openai client. Overhead = wall - provider round trips - tool batches, ` +
        `per model call. The engine's overhead includes its token accounting with the production tokenizer (bpe.ts, ` +
        `piece memo, per-message cache); "cache misses" are the messages it tokenized per run. Floor: a loop on the ` +
        `openai client with the same provider, schemas, messages and tool functions, counting no tokens. ` +
        `Median of ${ROUNDS} rounds alternating engine and floor, after ${WARMUP} warm-up rounds.`,
      table: {
        head: [
          "prior history (msgs)",
          "engine wall ms",
          "engine provider ms/call",
          "engine overhead ms/step",
          "floor wall ms",
          "floor provider ms/call",
          "floor overhead ms/step",
          "engine − floor ms/step",
          "engine/floor overhead ratio",
          "messages tokenized per run (cache misses)",
        ],
        rows,
      },
      targets: [
        {
          claim: "engine overhead beyond the floor per step",
          measured: `${fmt(worst, 3)} ms (worst history)`,
          target: "≤ 1 ms/step",
          met: worst <= 1,
        },
        {
          claim: "overhead flat with history (0 → 300 messages)",
          measured: `spread ${fmt(flat, 3)} ms/step`,
          target: "spread ≤ 0.25 ms/step",
          met: flat <= 0.25,
        },
      ],
    }
  } finally {
    await provider.stop()
  }
}

if (import.meta.main) emit(await main())
