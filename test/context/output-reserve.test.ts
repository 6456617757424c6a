/**
 * The output reserve (issue 12 item 4a): a catalog or default output limit is capped at a fifth
 * of the window and at 64000 (HolmesGPT's rule), so an 8k model keeps 6400 tokens for the prompt;
 * a limit set explicitly is used as given, and one that leaves no room is refused by name.
 */
import { describe, expect, test } from "bun:test"
import { ConfigError } from "../../src/errors.ts"
import { outputReserve, resolveModelInfo } from "../../src/llm/catalog.ts"
import { ask, engine } from "../support/engine.ts"
import { startFakeProvider } from "../support/fake-provider.ts"

describe("output reserve", () => {
  test("an unknown model with an 8k window reserves a fifth of it, not the 4096 default", () => {
    const info = resolveModelInfo("ollama/some-local-8b", { contextWindow: 8000 })
    expect(info.maxOutputTokens).toBe(1600)
    expect(resolveModelInfo("openai/my-proxy-model", { contextWindow: 4000 }).maxOutputTokens).toBe(800)
  })

  test("a catalog limit larger than a fifth of the window is capped; smaller ones stay", () => {
    // gpt-4o: 128000 window, 16384 output: under a fifth, unchanged.
    expect(resolveModelInfo("openai/gpt-4o").maxOutputTokens).toBe(16_384)
    // The same model run with a 16k window: a fifth of it.
    expect(resolveModelInfo("openai/gpt-4o", { contextWindow: 16_000 }).maxOutputTokens).toBe(3_200)
    expect(outputReserve(1_000_000, 128_000, false)).toBe(64_000)
    expect(outputReserve(1_000_000, undefined, false)).toBe(4_096)
  })

  test("max_output_tokens in modelList and OVERRIDE_MAX_OUTPUT_TOKEN are used as given", () => {
    expect(
      resolveModelInfo("ollama/x-8b", { contextWindow: 8000, maxOutputTokens: 3000 }).maxOutputTokens,
    ).toBe(3000)
    const env = { OVERRIDE_MAX_OUTPUT_TOKEN: "2500" }
    expect(resolveModelInfo("ollama/x-8b", { contextWindow: 8000 }, env).maxOutputTokens).toBe(2500)
  })

  test("an explicit reserve that leaves no room is a config error naming the key to change", () => {
    expect(() => resolveModelInfo("ollama/x-8b", { contextWindow: 8000, maxOutputTokens: 8000 })).toThrow(
      ConfigError,
    )
    expect(() => resolveModelInfo("ollama/x-8b", { contextWindow: 8000, maxOutputTokens: 9000 })).toThrow(
      /max_output_tokens \(modelList\) = 9000 leaves no room for the prompt in the 8000-token context window/,
    )
    expect(() =>
      resolveModelInfo("ollama/x-8b", { contextWindow: 4000 }, { OVERRIDE_MAX_OUTPUT_TOKEN: "4096" }),
    ).toThrow(/OVERRIDE_MAX_OUTPUT_TOKEN = 4096 .*raise context_window/)
  })

  test("large models: HolmesGPT's numbers, and the reserve never limits the answer (no max_tokens is sent)", async () => {
    // HolmesGPT: floor(min(64000, window / 5)), lowered to LiteLLM's max_output_tokens when that is smaller.
    expect(resolveModelInfo("anthropic/claude-sonnet-4-5").maxOutputTokens).toBe(40_000)
    expect(resolveModelInfo("anthropic/claude-3-5-sonnet").maxOutputTokens).toBe(8_192)
    expect(outputReserve(400_000, 128_000, false)).toBe(64_000)
    // The reserve only decides when the history is compacted: the provider is not told to stop early.
    const fake = await startFakeProvider()
    try {
      fake.script({ content: "a long answer" })
      await engine(fake, { overrides: { contextWindow: 200_000 } }).call(ask("q"))
      const body = fake.requests.find((r) => r.path.endsWith("/chat/completions"))?.body ?? {}
      expect(body).not.toHaveProperty("max_tokens")
      expect(body).not.toHaveProperty("max_completion_tokens")
    } finally {
      await fake.stop()
    }
  })
})
