import { describe, expect, test } from "bun:test"
import { resolveModelInfo } from "../../src/llm/catalog.ts"
import { costOf } from "../../src/llm/cost.ts"

describe("costOf", () => {
  test("prices prompt and completion tokens separately", () => {
    const info = resolveModelInfo("openai/gpt-4.1") // $2 / $8 per million
    expect(costOf({ prompt_tokens: 1_000_000, completion_tokens: 0 }, info)).toBeCloseTo(2, 10)
    expect(costOf({ prompt_tokens: 1_000, completion_tokens: 500 }, info)).toBeCloseTo(0.002 + 0.004, 12)
  })

  test("config prices win; local models are free", () => {
    const info = resolveModelInfo("openai/gpt-4.1", { inputCostPerToken: 0.001, outputCostPerToken: 0.002 })
    expect(costOf({ prompt_tokens: 10, completion_tokens: 5 }, info)).toBeCloseTo(0.02, 12)
    expect(
      costOf({ prompt_tokens: 10_000, completion_tokens: 5_000 }, resolveModelInfo("ollama/llama3.1")),
    ).toBe(0)
  })
})
