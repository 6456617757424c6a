/**
 * Truncation cost by tool-output size: `bun test/bench/context-truncation.ts`.
 *
 * Each case runs in its own process so RSS figures do not mix. For 1 and 50 MB the output is a
 * JS string of log lines; 500 MB goes through the spawn path the loop uses (a process writing
 * 500 MB of "a", read with the default 10 MB cap), since the loop never holds more than the cap.
 * Reported: time and RSS growth of the cut alone (`truncateToBudget`) and of the loop's whole
 * path (`RunTools.toolMessage` past the fencing: cut, paging note, full text kept or spilled to disk).
 */
import { DEFAULT_CONTEXT_SETTINGS, toolResultBudget } from "../../src/context/limits.ts"
import { OutputStore } from "../../src/context/output-store.ts"
import { cutToolMessage } from "../../src/context/tool-result.ts"
import { truncateToBudget } from "../../src/context/truncate.ts"
import { createChatModel } from "../../src/llm/factory.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import { runProcess } from "../../src/tool/spawn.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"

const MB = 1_000_000
const rssMb = () => process.memoryUsage().rss / MB

function logLines(bytes: number): string {
  // Chunks joined once: building by += would keep rope fragments alive and distort RSS.
  const chunks: string[] = []
  let size = 0
  for (let i = 1; size < bytes; i++) {
    const line = `2025-01-01T00:00:${String(i % 60).padStart(2, "0")}Z pod web-${i % 13} GET /api/v1/items/${i} 200 ${i % 997}ms\n`
    chunks.push(line)
    size += line.length
  }
  return chunks.join("").slice(0, bytes)
}

async function runCase(sizeMb: number): Promise<void> {
  const model = createChatModel({ id: "openai/gpt-4o", apiKey: "unused", env: {} })
  const counter = await TokenCounter.forModel(model.info.id)
  counter.countText("warm up the encoder")
  const budget = toolResultBudget(model.info.contextWindow, DEFAULT_CONTEXT_SETTINGS)
  const store = new OutputStore()
  Bun.gc(true)
  const base = rssMb()
  let source = "string"
  let produce = 0
  let output: string
  if (sizeMb >= 500) {
    source = "spawn, 10 MB cap"
    const started = performance.now()
    const result = await runProcess({
      argv: ["sh", "-c", `head -c ${sizeMb * MB} /dev/zero | tr '\\0' a`],
      env: buildToolEnv(process.env),
      timeoutMs: 300_000,
      maxOutputBytes: DEFAULT_TOOL_LIMITS.outputMaxBytes,
    })
    produce = performance.now() - started
    output = result.output
    if (result.outputBytes !== sizeMb * MB)
      throw new Error(`expected ${sizeMb * MB} bytes, got ${result.outputBytes}`)
  } else {
    output = logLines(sizeMb * MB)
  }
  Bun.gc(true)
  const withInput = rssMb()

  let started = performance.now()
  const cut = await truncateToBudget(output, budget, counter)
  const cutMs = performance.now() - started
  Bun.gc(true)
  const afterCut = rssMb()

  started = performance.now()
  const built = await cutToolMessage(
    { role: "tool", tool_call_id: "bench", name: "bench", content: output },
    "bench",
    budget,
    counter,
  )
  if (built.full !== undefined) store.put("bench", "bench", built.full)
  const { message } = built
  const pathMs = performance.now() - started
  Bun.gc(true)
  const afterPath = rssMb()
  await store.dispose()

  console.log(
    JSON.stringify({
      size_mb: sizeMb,
      source,
      produce_ms: Math.round(produce),
      held_chars: output.length,
      budget_tokens: budget,
      kept_chars: cut.cut?.endIndex,
      kept_tokens: counter.countText(message.content),
      original_token_estimate: cut.cut?.originalTokenCount,
      cut_ms: Math.round(cutMs),
      cut_rss_growth_mb: Math.round(afterCut - withInput),
      loop_path_ms: Math.round(pathMs),
      loop_path_rss_growth_mb: Math.round(afterPath - afterCut),
      input_rss_mb: Math.round(withInput - base),
      max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1000),
    }),
  )
}

const only = process.argv[2]
if (only) {
  await runCase(Number(only))
} else {
  for (const size of [1, 50, 500]) {
    const child = Bun.spawn([process.execPath, import.meta.path, String(size)], {
      stdout: "inherit",
      stderr: "inherit",
    })
    if ((await child.exited) !== 0) process.exit(1)
  }
}
