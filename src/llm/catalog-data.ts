/**
 * Built-in facts about well-known models, from the providers' public model and pricing pages.
 * `window` is the input budget (what compaction measures against), `output` the largest reply,
 * prices are USD per million tokens (converted per token at lookup).
 *
 * Keys are the model names as the provider's API spells them. A key with a `provider/` prefix
 * applies only to that provider: Ollama's short names (`mistral`, `llama3.1`) would otherwise
 * shadow hosted models with other limits and prices.
 */
export type CatalogEntry = {
  window: number
  output: number
  vision: boolean
  /** USD per million input tokens. */
  inputPrice: number
  /** USD per million output tokens. */
  outputPrice: number
  aliases?: string[]
}

const e = (
  window: number,
  output: number,
  vision: boolean,
  inputPrice: number,
  outputPrice: number,
  aliases?: string[],
): CatalogEntry => ({ window, output, vision, inputPrice, outputPrice, ...(aliases ? { aliases } : {}) })

/** Local models cost nothing per token. */
const local = (window: number, output: number, vision = false) => e(window, output, vision, 0, 0)

export const CATALOG_DATA: Readonly<Record<string, CatalogEntry>> = {
  // OpenAI
  "gpt-5": e(272_000, 128_000, true, 1.25, 10),
  "gpt-5.1": e(272_000, 128_000, true, 1.25, 10),
  "gpt-5-mini": e(272_000, 128_000, true, 0.25, 2),
  "gpt-5-nano": e(272_000, 128_000, true, 0.05, 0.4),
  "gpt-5-chat": e(128_000, 16_384, true, 1.25, 10, ["gpt-5-chat-latest"]),
  "gpt-4.1": e(1_047_576, 32_768, true, 2, 8),
  "gpt-4.1-mini": e(1_047_576, 32_768, true, 0.4, 1.6),
  "gpt-4.1-nano": e(1_047_576, 32_768, true, 0.1, 0.4),
  "gpt-4o": e(128_000, 16_384, true, 2.5, 10, ["chatgpt-4o-latest"]),
  "gpt-4o-mini": e(128_000, 16_384, true, 0.15, 0.6),
  "gpt-4-turbo": e(128_000, 4_096, true, 10, 30),
  "gpt-4": e(8_192, 4_096, false, 30, 60),
  "gpt-3.5-turbo": e(16_385, 4_096, false, 0.5, 1.5),
  o1: e(200_000, 100_000, true, 15, 60),
  o3: e(200_000, 100_000, true, 2, 8),
  "o3-pro": e(200_000, 100_000, true, 20, 80),
  "o3-mini": e(200_000, 100_000, false, 1.1, 4.4),
  "o4-mini": e(200_000, 100_000, true, 1.1, 4.4),
  "gpt-oss-120b": e(131_072, 32_768, false, 0.15, 0.6),
  "gpt-oss-20b": e(131_072, 32_768, false, 0.075, 0.3),

  // Anthropic (ids of the OpenAI-compatible endpoint; dated ids resolve by suffix stripping)
  "claude-opus-4-5": e(200_000, 64_000, true, 5, 25),
  "claude-opus-4-1": e(200_000, 32_000, true, 15, 75),
  "claude-opus-4": e(200_000, 32_000, true, 15, 75, ["claude-opus-4-0"]),
  "claude-sonnet-4-5": e(200_000, 64_000, true, 3, 15),
  "claude-sonnet-4": e(200_000, 64_000, true, 3, 15, ["claude-sonnet-4-0"]),
  "claude-haiku-4-5": e(200_000, 64_000, true, 1, 5),
  "claude-3-7-sonnet": e(200_000, 64_000, true, 3, 15),
  "claude-3-5-sonnet": e(200_000, 8_192, true, 3, 15),
  "claude-3-5-haiku": e(200_000, 8_192, true, 0.8, 4),
  "claude-3-haiku": e(200_000, 4_096, true, 0.25, 1.25),

  // Google Gemini (prices of the <=200k-token prompt tier)
  "gemini-3-pro-preview": e(1_048_576, 65_536, true, 2, 12),
  "gemini-2.5-pro": e(1_048_576, 65_536, true, 1.25, 10),
  "gemini-2.5-flash": e(1_048_576, 65_536, true, 0.3, 2.5),
  "gemini-2.5-flash-lite": e(1_048_576, 65_536, true, 0.1, 0.4),
  "gemini-2.0-flash": e(1_048_576, 8_192, true, 0.1, 0.4),
  "gemini-2.0-flash-lite": e(1_048_576, 8_192, true, 0.075, 0.3),

  // Mistral
  "mistral-large": e(131_072, 8_192, false, 2, 6),
  "mistral-medium": e(131_072, 8_192, true, 0.4, 2),
  "mistral-small": e(131_072, 8_192, true, 0.1, 0.3),
  "pixtral-large": e(131_072, 8_192, true, 2, 6),
  codestral: e(256_000, 8_192, false, 0.3, 0.9),
  "open-mistral-nemo": e(131_072, 8_192, false, 0.15, 0.15),
  "ministral-8b": e(131_072, 8_192, false, 0.1, 0.1),

  // DeepSeek (V3.2 prices, cache-miss input)
  "deepseek-chat": e(128_000, 8_192, false, 0.28, 0.42),
  "deepseek-reasoner": e(128_000, 64_000, false, 0.28, 0.42),

  // xAI
  "grok-4": e(256_000, 32_768, true, 3, 15),
  "grok-4-fast-reasoning": e(2_000_000, 30_000, true, 0.2, 0.5, ["grok-4-fast"]),
  "grok-4-fast-non-reasoning": e(2_000_000, 30_000, true, 0.2, 0.5),
  "grok-code-fast-1": e(256_000, 10_000, false, 0.2, 1.5),
  "grok-3": e(131_072, 32_768, false, 3, 15),
  "grok-3-mini": e(131_072, 32_768, false, 0.3, 0.5),

  // Groq-hosted open models
  "llama-3.3-70b-versatile": e(131_072, 32_768, false, 0.59, 0.79),
  "llama-3.1-8b-instant": e(131_072, 8_192, false, 0.05, 0.08),

  // Ollama (local; windows are the models' native context, not Ollama's default num_ctx)
  "ollama/llama3": local(8_192, 4_096),
  "ollama/llama3.1": local(131_072, 8_192),
  "ollama/llama3.2": local(131_072, 8_192),
  "ollama/llama3.2-vision": local(131_072, 8_192, true),
  "ollama/llama3.3": local(131_072, 8_192),
  "ollama/qwen2.5": local(32_768, 8_192),
  "ollama/qwen2.5-coder": local(32_768, 8_192),
  "ollama/qwen2.5vl": local(128_000, 8_192, true),
  "ollama/qwen3": local(40_960, 8_192),
  "ollama/qwen3-coder": local(262_144, 8_192),
  "ollama/mistral": local(32_768, 8_192),
  "ollama/mistral-nemo": local(131_072, 8_192),
  "ollama/mistral-small": local(131_072, 8_192, true),
  "ollama/gemma3": local(131_072, 8_192, true),
  "ollama/deepseek-r1": local(131_072, 8_192),
  "ollama/phi4": local(16_384, 4_096),
  "ollama/llava": local(4_096, 2_048, true),
  "ollama/gpt-oss": local(131_072, 32_768),
}
