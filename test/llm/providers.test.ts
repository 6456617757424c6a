import { describe, expect, test } from "bun:test"
import { ConfigError } from "../../src/errors.ts"
import {
  DEFAULT_AZURE_API_VERSION,
  PROVIDERS,
  parseModelId,
  resolveEndpoint,
} from "../../src/llm/providers.ts"

describe("parseModelId", () => {
  test("a bare id means openai", () => {
    expect(parseModelId("gpt-4.1")).toEqual({ provider: "openai", model: "gpt-4.1" })
  })

  test("the model part keeps its own slashes", () => {
    expect(parseModelId("openrouter/meta-llama/llama-3.1-70b")).toEqual({
      provider: "openrouter",
      model: "meta-llama/llama-3.1-70b",
    })
    expect(parseModelId("groq/openai/gpt-oss-120b")).toEqual({
      provider: "groq",
      model: "openai/gpt-oss-120b",
    })
  })

  test("an unknown provider is a config error listing the valid ones", () => {
    expect(() => parseModelId("acme/model-1")).toThrow(ConfigError)
    expect(() => parseModelId("acme/model-1")).toThrow(/Unknown provider "acme".*openai, azure, anthropic/)
    expect(() => parseModelId("openai/")).toThrow(ConfigError)
    expect(() => parseModelId("  ")).toThrow(ConfigError)
  })
})

describe("resolveEndpoint", () => {
  test("every provider has a key variable named after it, except ollama", () => {
    for (const [name, spec] of Object.entries(PROVIDERS)) {
      expect(spec.keyEnv).toBe(name === "ollama" ? null : `${name.toUpperCase()}_API_KEY`)
      expect(spec.baseEnv).toContain(`${name.toUpperCase()}_API_BASE`)
    }
  })

  test("takes the key from the provider's variable and the default base URL", () => {
    const endpoint = resolveEndpoint({ id: "anthropic/claude-sonnet-4-5" }, { ANTHROPIC_API_KEY: "sk-ant" })
    expect(endpoint).toEqual({
      id: "anthropic/claude-sonnet-4-5",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      apiKey: "sk-ant",
      baseURL: "https://api.anthropic.com/v1/",
      baseURLFrom: "the default for anthropic",
    })
    expect(resolveEndpoint({ id: "gemini/gemini-2.5-pro" }, { GEMINI_API_KEY: "g" }).baseURL).toBe(
      "https://generativelanguage.googleapis.com/v1beta/openai/",
    )
  })

  test("config values beat environment variables, which beat defaults", () => {
    const env = { OPENAI_API_KEY: "env-key", OPENAI_BASE_URL: "http://env.example/v1" }
    expect(resolveEndpoint({ id: "gpt-4o" }, env)).toMatchObject({
      apiKey: "env-key",
      baseURL: "http://env.example/v1",
    })
    expect(
      resolveEndpoint({ id: "gpt-4o", apiKey: "cfg", apiBase: "http://cfg.example/v1" }, env),
    ).toMatchObject({
      apiKey: "cfg",
      baseURL: "http://cfg.example/v1",
    })
    expect(
      resolveEndpoint(
        { id: "mistral/mistral-large-latest" },
        { MISTRAL_API_KEY: "m", MISTRAL_API_BASE: "http://m/v1" },
      ).baseURL,
    ).toBe("http://m/v1")
  })

  test("a missing key names the variable to set", () => {
    expect(() => resolveEndpoint({ id: "openai/gpt-4.1" }, {})).toThrow(
      "No API key for model openai/gpt-4.1: set OPENAI_API_KEY or api_key in the config (a server that needs no key, such as vLLM or llama.cpp, is reached with api_base).",
    )
    // An empty value (e.g. an unset variable templated into the config) counts as missing.
    expect(() =>
      resolveEndpoint({ id: "deepseek/deepseek-chat", apiKey: "" }, { DEEPSEEK_API_KEY: " " }),
    ).toThrow("set DEEPSEEK_API_KEY")
  })

  test("ollama needs no key and accepts a bare server address", () => {
    expect(resolveEndpoint({ id: "ollama/llama3.1" }, {})).toMatchObject({
      baseURL: "http://127.0.0.1:11434/v1",
    })
    expect(resolveEndpoint({ id: "ollama/llama3.1" }, { OLLAMA_API_BASE: "http://gpu:11434" }).baseURL).toBe(
      "http://gpu:11434/v1",
    )
    expect(resolveEndpoint({ id: "ollama/qwen3" }, { OLLAMA_API_BASE: "http://gpu:11434/v1" }).baseURL).toBe(
      "http://gpu:11434/v1",
    )
  })

  test("azure needs an endpoint and gets an API version", () => {
    expect(() => resolveEndpoint({ id: "azure/my-deploy" }, { AZURE_API_KEY: "a" })).toThrow(
      /set AZURE_API_BASE/,
    )
    const endpoint = resolveEndpoint(
      { id: "azure/my-deploy" },
      { AZURE_API_KEY: "a", AZURE_API_BASE: "https://r.openai.azure.com/" },
    )
    expect(endpoint).toMatchObject({ model: "my-deploy", apiVersion: DEFAULT_AZURE_API_VERSION })
    expect(
      resolveEndpoint(
        { id: "azure/d", apiVersion: "2025-01-01-preview" },
        { AZURE_API_KEY: "a", AZURE_API_BASE: "https://r/" },
      ).apiVersion,
    ).toBe("2025-01-01-preview")
  })
})
