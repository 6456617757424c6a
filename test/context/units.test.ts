import { describe, expect, test } from "bun:test"
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { fairShareCap, shrinkToolResults } from "../../src/context/fit.ts"
import { OutputStore } from "../../src/context/output-store.ts"
import { withoutTruncationSuffix } from "../../src/context/tool-result.ts"
import { TRUNCATION_MARKER, truncateToBudget } from "../../src/context/truncate.ts"
import { ratioPct } from "../../src/context/window.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import type { ChatMessage } from "../../src/llm/types.ts"

const counter = await TokenCounter.forModel("openai/gpt-4o")

describe("truncateToBudget", () => {
  test("content within the budget is returned as is", async () => {
    expect(await truncateToBudget("short output", 100, counter)).toEqual({ content: "short output" })
    const words = "ok ".repeat(300)
    expect((await truncateToBudget(words, 400, counter)).cut).toBeUndefined()
  })

  test("a cut keeps a token-boundary prefix, ends with the marker, fits, and reports kept characters", async () => {
    // Under budget × 8 characters: the original count is exact.
    const text = Array.from({ length: 130 }, (_, i) => `row ${i} value ${i * 7}`).join("\n")
    expect(text.length).toBeLessThan(300 * 8)
    const out = await truncateToBudget(text, 300, counter)
    expect(out.cut).toBeDefined()
    expect(out.content.endsWith(`\n${TRUNCATION_MARKER}`)).toBe(true)
    expect(out.content.slice(0, out.cut!.endIndex)).toBe(text.slice(0, out.cut!.endIndex))
    expect(counter.countText(out.content)).toBeLessThanOrEqual(300)
    expect(out.cut!.originalTokenCount).toBe(counter.countText(text))
    // Above it, extrapolated from the kept prefix.
    const long = Array.from({ length: 5000 }, (_, i) => `row ${i} value ${i * 7}`).join("\n")
    const estimated = (await truncateToBudget(long, 300, counter)).cut!.originalTokenCount
    expect(Math.abs(estimated / counter.countText(long) - 1)).toBeLessThan(0.1)
  })

  test("few characters can still be many tokens (CJK): the cheap length check does not let them through", async () => {
    const cjk = "日本語のログ出力".repeat(40) // 320 characters, more tokens than a 100-token budget
    expect(counter.countText(cjk)).toBeGreaterThan(100)
    const out = await truncateToBudget(cjk, 100, counter)
    expect(out.cut).toBeDefined()
    expect(counter.countText(out.content)).toBeLessThanOrEqual(100)
  })

  test("with a large configured budget, a long output that fits is not cut", async () => {
    const text = "word ".repeat(100_000) // 500k characters, ~100k tokens
    expect((await truncateToBudget(text, 200_000, counter)).cut).toBeUndefined()
  })

  test("huge outputs are cut in time bounded by the budget; the original count is an estimate", async () => {
    const text = "x".repeat(20_000_000)
    const started = performance.now()
    const out = await truncateToBudget(text, 1000, counter)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(out.cut!.originalTokenCount).toBeGreaterThan(1_000_000)
    expect(counter.countText(out.content)).toBeLessThanOrEqual(1000)
  })

  test("a note goes between the kept text and the marker", async () => {
    const text = "line\n".repeat(5000)
    const out = await truncateToBudget(text, 200, counter, (kept) => `[cut after ${kept.length}]`)
    expect(out.content).toEndWith(`\n[cut after ${out.cut!.endIndex}]\n${TRUNCATION_MARKER}`)
    expect(counter.countText(out.content)).toBeLessThanOrEqual(200)
    expect(withoutTruncationSuffix(out.content)).toBe(
      `${text.slice(0, out.cut!.endIndex)}\n[cut after ${out.cut!.endIndex}]`,
    )
  })
})

describe("OutputStore", () => {
  test("keeps outputs in memory up to its bound, spills the rest to a private file, and cleans up", async () => {
    const store = new OutputStore(1000)
    store.put("a", "t", "x".repeat(800))
    expect(store.spilled).toBe(false)
    store.put("b", "t", "y".repeat(800))
    expect(store.spilled).toBe(true)
    const dir = store.spillDir!
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, "1.txt")).mode & 0o777).toBe(0o600)
    expect(await store.get("a")).toBe("x".repeat(800))
    expect(await store.get("b")).toBe("y".repeat(800))
    expect(await store.get("c")).toBeUndefined()
    expect(store.toolName("b")).toBe("t")
    await store.dispose()
    expect(existsSync(dir)).toBe(false)
    expect(await store.get("a")).toBeUndefined()
  })

  test("a model-chosen id never becomes a path", async () => {
    const store = new OutputStore(0)
    store.put("../../etc/passwd", "t", "data")
    expect(await store.get("../../etc/passwd")).toBe("data")
    expect(existsSync(join(store.spillDir!, "1.txt"))).toBe(true)
    await store.dispose()
  })
})

describe("fair share", () => {
  test("small items stay whole, large ones share the rest equally", async () => {
    expect(fairShareCap([100, 100], 1000)).toBe(Number.POSITIVE_INFINITY)
    expect(fairShareCap([100, 5000, 5000], 1100)).toBe(500)
    expect(fairShareCap([300, 300, 300], 600)).toBe(200)
    expect(fairShareCap([10], -5)).toBe(0)
  })

  test("shrinking cuts only the largest tool results, records each cut, and keeps their full text", async () => {
    const store = new OutputStore()
    const big = "pod crashloop detail line\n".repeat(800)
    const history: ChatMessage[] = [
      { role: "system", content: "s" },
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "small", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "logs", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "tiny" },
      { role: "tool", tool_call_id: "b", content: big },
    ]
    const before = counter.tally(history).total_tokens
    const out = await shrinkToolResults(history, 3000, counter, store)
    expect(out.messages[3]).toBe(history[3]!)
    expect(String(out.messages[4]!.content)).toEndWith(TRUNCATION_MARKER)
    expect(counter.tally(out.messages).total_tokens).toBeLessThanOrEqual(before - 3000 + 50)
    expect(out.truncations).toEqual([
      expect.objectContaining({ tool_call_id: "b", tool_name: "logs", start_index: 0 }),
    ])
    expect(await store.get("b")).toBe(big)
    await store.dispose()
  })

  test("compression ratio has two decimals", async () => {
    expect(ratioPct(3000, 1000)).toBe(66.67)
    expect(ratioPct(0, 0)).toBe(0)
  })
})
