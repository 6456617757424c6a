import { afterEach, describe, expect, test } from "bun:test"
import { ConfigError } from "../../src/errors.ts"
import { catalogCandidates, lookupCatalog, resolveModelInfo } from "../../src/llm/catalog.ts"
import { setLogLevel, setLogSink } from "../../src/log.ts"

let restore: (() => void) | undefined
afterEach(() => {
  restore?.()
  restore = undefined
})

/** Captures log lines at every level until the test ends. */
function captureLog(): string[] {
  const lines: string[] = []
  const sink = setLogSink((line) => lines.push(line))
  const level = setLogLevel("DEBUG")
  restore = () => {
    setLogSink(sink)
    setLogLevel(level)
  }
  return lines
}

describe("catalog lookup", () => {
  test("known models carry their window, output limit, vision and per-token prices", () => {
    const info = resolveModelInfo("openai/gpt-4o")
    expect(info).toEqual({
      id: "openai/gpt-4o",
      provider: "openai",
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      supportsVision: true,
      inputCostPerToken: 2.5 / 1e6,
      outputCostPerToken: 10 / 1e6,
      known: true,
    })
    expect(resolveModelInfo("deepseek/deepseek-reasoner")).toMatchObject({
      supportsVision: false,
      known: true,
    })
  })

  test("tolerates dated suffixes, tags, dotted versions and provider prefixes", () => {
    const gpt4o = lookupCatalog("openai/gpt-4o")
    expect(lookupCatalog("gpt-4o-2024-08-06")).toBe(gpt4o!)
    expect(lookupCatalog("azure/gpt-4o")).toBe(gpt4o!)
    expect(lookupCatalog("openrouter/openai/gpt-4o")).toBe(gpt4o!)
    const sonnet = lookupCatalog("anthropic/claude-sonnet-4-5")
    expect(sonnet).toBeDefined()
    expect(lookupCatalog("anthropic/claude-sonnet-4-5-20250929")).toBe(sonnet!)
    expect(lookupCatalog("openrouter/anthropic/claude-sonnet-4.5")).toBe(sonnet!)
    expect(lookupCatalog("mistral/mistral-large-latest")).toBe(lookupCatalog("mistral/mistral-large-2411")!)
    expect(lookupCatalog("ollama/llama3.1:70b")).toBe(lookupCatalog("ollama/llama3.1")!)
    expect(lookupCatalog("gemini/gemini-2.5-flash-preview-05-20")).toBe(
      lookupCatalog("gemini/gemini-2.5-flash")!,
    )
  })

  test("provider-scoped entries do not leak to other providers", () => {
    // Ollama's "mistral" is a local 7B model; the hosted Mistral API has no model of that name.
    expect(resolveModelInfo("ollama/mistral")).toMatchObject({ known: true, inputCostPerToken: 0 })
    expect(lookupCatalog("mistral/mistral")).toBeUndefined()
  })

  test("candidates go from most to least specific", () => {
    expect(catalogCandidates("meta-llama/Llama-3.1-70B-Instruct")).toEqual([
      "meta-llama/llama-3.1-70b-instruct",
      "meta-llama/llama-3.1-70b",
      "llama-3.1-70b-instruct",
      "llama-3.1-70b",
    ])
  })
})

describe("overrides", () => {
  test("config overrides beat the catalog", () => {
    const info = resolveModelInfo("openai/gpt-4o-mini", {
      contextWindow: 50_000,
      maxOutputTokens: 1_000,
      supportsVision: false,
      inputCostPerToken: 1e-6,
      outputCostPerToken: 2e-6,
    })
    expect(info).toMatchObject({
      contextWindow: 50_000,
      maxOutputTokens: 1_000,
      supportsVision: false,
      inputCostPerToken: 1e-6,
      outputCostPerToken: 2e-6,
      known: true,
    })
  })

  test("OVERRIDE_MAX_* variables apply to every model, above config", () => {
    const env = { OVERRIDE_MAX_CONTENT_SIZE: "64000", OVERRIDE_MAX_OUTPUT_TOKEN: "2048" }
    expect(resolveModelInfo("openai/gpt-4.1", { contextWindow: 10 }, env)).toMatchObject({
      contextWindow: 64_000,
      maxOutputTokens: 2_048,
    })
    expect(() => resolveModelInfo("openai/gpt-4.1", {}, { OVERRIDE_MAX_CONTENT_SIZE: "lots" })).toThrow(
      ConfigError,
    )
    expect(() => resolveModelInfo("openai/gpt-4.1", {}, { OVERRIDE_MAX_OUTPUT_TOKEN: "0" })).toThrow(
      /OVERRIDE_MAX_OUTPUT_TOKEN/,
    )
  })
})

describe("unknown models", () => {
  test("get defaults, are not refused, and warn once per id", () => {
    const lines = captureLog()
    const id = `openai/custom-model-${crypto.randomUUID()}`
    const info = resolveModelInfo(id)
    expect(info).toEqual({
      id,
      provider: "openai",
      contextWindow: 128_000,
      maxOutputTokens: 4_096,
      supportsVision: true,
      inputCostPerToken: 0,
      outputCostPerToken: 0,
      known: false,
    })
    resolveModelInfo(id)
    resolveModelInfo(id.slice("openai/".length)) // same model through a bare id
    const warnings = lines.map((line) => JSON.parse(line)).filter((entry) => entry.model === id)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: "WARN", context_window: 128_000 })
  })

  test("no warning when the operator configured the window", () => {
    const lines = captureLog()
    const info = resolveModelInfo(`openai/other-${crypto.randomUUID()}`, { contextWindow: 32_000 })
    expect(info).toMatchObject({ contextWindow: 32_000, known: false })
    expect(lines).toHaveLength(0)
  })
})
