/**
 * What the first request of a question costs on a small window: prompt tokens sent to the
 * provider at 128k (everything up front), 8k (deferred tools, held-back toolsets' instructions
 * waiting for search_tools) and 4k (the same with a lean prompt), with the built-in toolsets
 * enabled by fake kubectl, helm and docker executables. Through the engine door and the fake
 * provider, counted with dupin's tokenizer. Token counts do not depend on the machine, so one run
 * is exact. `bun test/bench/small-window.ts` (or `bun run bench small-window`).
 *
 * Floor: the same question and prompt sections with no tool at all (no definitions, no
 * `toolset_instructions` section), what any request of this question must carry.
 */
import { buildInitialAskMessages, resolveSections } from "../../src/core/prompt.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import type { ChatMessage } from "../../src/llm/types.ts"
import { setLogLevel } from "../../src/log.ts"
import {
  completions,
  fakeClusterTools,
  requestTokens,
  SMALL_MODEL,
  smallConfig,
  toolNames,
} from "../agent/small-window-support.ts"
import { startFakeProvider } from "../support/fake-provider.ts"
import { emit } from "./support/report.ts"
import { fmt } from "./support/stats.ts"

setLogLevel("ERROR")
const QUESTION = "Why is pod api-7d9 in namespace shop crashing?"
const LEAN = "intro,ask_user,general_instructions"

type Row = {
  window: number
  prompt: string
  sent: number
  held: number
  tools: number
  system: number
  total: number
  floor: number
  reserve: number
}

const cluster = fakeClusterTools()
const fake = await startFakeProvider()
const counter = await TokenCounter.forModel(SMALL_MODEL)

async function measure(window: number, prompt: string, env: Record<string, string>): Promise<Row> {
  const config = smallConfig(fake, cluster, window, env)
  const llm = config.createConsoleToolCallingLLM()
  const sections = resolveSections(config.enabledPrompts)
  const build = (on: ReadonlySet<string>) =>
    buildInitialAskMessages({
      initialUserPrompt: QUESTION,
      toolExecutor: llm.toolExecutor,
      sections: on as typeof sections,
    })
  const messages = await build(sections)
  const bare = new Set(sections)
  bare.delete("toolset_instructions")
  const floor = counter.tally(await build(bare), []).total_tokens
  const before = completions(fake).length
  fake.script({ content: "done" })
  await llm.call(messages)
  const first = completions(fake)[before]
  if (!first) throw new Error(`no request at ${window}`)
  const { total, tools } = await requestTokens(first)
  const sent = toolNames(first)
  const system = ((first.body?.messages ?? []) as ChatMessage[]).slice(0, 1)
  return {
    window,
    prompt,
    sent: sent.length,
    held: Object.keys(llm.toolExecutor.offeredTools).filter((n) => !sent.includes(n)).length,
    tools,
    system: counter.tally(system, []).total_tokens,
    total,
    floor,
    reserve: llm.model.info.maxOutputTokens,
  }
}

let rows: Row[]
try {
  rows = [
    await measure(128_000, "all sections", {}),
    await measure(8_000, "all sections", {}),
    await measure(4_000, `ENABLED_PROMPTS=${LEAN}`, { ENABLED_PROMPTS: LEAN }),
  ]
} finally {
  await fake.stop()
  cluster.cleanup()
}
const [large, eight, four] = rows as [Row, Row, Row]
const free = (r: Row) => r.window - r.reserve - r.total
const share = (r: Row) => r.total / (r.window - r.reserve)

emit({
  name: "small-window",
  method: `The first request of "${QUESTION}" with the built-in toolsets (kubectl, helm and docker present), as the fake provider received it, counted with dupin's tokenizer for ${SMALL_MODEL}. Floor: the same question and prompt sections with no tools and no toolset_instructions section. Token counts are exact and do not vary between runs or machines.`,
  table: {
    head: [
      "window",
      "prompt",
      "tools sent (held back)",
      "tool tokens",
      "system prompt",
      "first request",
      "x floor",
      "x 128k request",
      "output reserve",
      "left for the conversation",
    ],
    rows: rows.map((r) => [
      String(r.window),
      r.prompt,
      `${r.sent} (${r.held})`,
      String(r.tools),
      String(r.system),
      String(r.total),
      fmt(r.total / r.floor),
      fmt(r.total / large.total),
      String(r.reserve),
      `${free(r)} (${fmt((free(r) / r.window) * 100, 0)} %)`,
    ]),
  },
  targets: [
    {
      claim: "on 8k the first request takes at most half of what the window leaves after the output reserve",
      measured: `${eight.total} of ${eight.window - eight.reserve} (${fmt(share(eight) * 100, 0)} %)`,
      target: "<= 50 %",
      met: share(eight) <= 0.5,
    },
    ...[eight, four].map((r) => ({
      claim: `on ${r.window / 1000}k the tool definitions sent up front stay within the budget (20 % of the window)`,
      measured: `${r.tools} tokens`,
      target: `<= ${r.window / 5}`,
      met: r.tools <= r.window / 5,
    })),
    {
      claim: "on 4k with a lean prompt the first request takes at most half of what the window leaves",
      measured: `${four.total} of ${four.window - four.reserve} (${fmt(share(four) * 100, 0)} %)`,
      target: "<= 50 %",
      met: share(four) <= 0.5,
    },
  ],
  notes: [
    `128k sends every tool (${large.tools} tokens of definitions); 8k sends ${eight.tools} and holds ${eight.held} tools back behind search_tools.`,
    "The tool definitions budget is 20 % of the window (limits.tool_definitions_budget_pct); what search_tools loads later is bounded by the same amount.",
  ],
})
