import { describe, expect, test } from "bun:test"
import { encodingForModel, IMAGE_TOKENS, TokenCounter } from "../../src/llm/tokens.ts"
import type { ChatMessage, ToolSchema } from "../../src/llm/types.ts"

const SCHEMAS: ToolSchema[] = [
  {
    type: "function",
    function: {
      name: "kubectl_logs",
      description: "Logs of a pod",
      parameters: { type: "object", properties: { pod: { type: "string" } }, required: ["pod"] },
    },
  },
]

describe("encodings", () => {
  test("o200k for current OpenAI and non-OpenAI models, cl100k for the gpt-4/3.5 generation", () => {
    expect(encodingForModel("openai/gpt-4o")).toBe("o200k_base")
    expect(encodingForModel("gpt-4.1-mini")).toBe("o200k_base")
    expect(encodingForModel("openai/o3")).toBe("o200k_base")
    expect(encodingForModel("anthropic/claude-sonnet-4-5")).toBe("o200k_base")
    expect(encodingForModel("openai/gpt-4")).toBe("cl100k_base")
    expect(encodingForModel("azure/gpt-4-turbo")).toBe("cl100k_base")
    expect(encodingForModel("gpt-3.5-turbo")).toBe("cl100k_base")
  })

  test("counters are shared per encoding and count real tokens", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4o")
    expect(await TokenCounter.forModel("openai/gpt-5")).toBe(counter)
    expect(counter.countText("")).toBe(0)
    expect(counter.countText("hello world")).toBe(2)
    // Special-token text in tool output is ordinary text, not an exception.
    expect(counter.countText("log line <|endoftext|> more")).toBeGreaterThan(3)
    const legacy = await TokenCounter.forModel("openai/gpt-4")
    expect(legacy.encoding).toBe("cl100k_base")
    expect(legacy.countText("hello world")).toBe(2)
  })
})

describe("message counting", () => {
  test("counting the same message object again is a cache hit", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4o")
    const message: ChatMessage = { role: "user", content: "why is my pod crashlooping? ".repeat(20) }
    const before = { ...counter.stats }
    const first = counter.countMessage(message)
    const second = counter.countMessage(message)
    expect(second).toBe(first)
    expect(counter.stats.misses - before.misses).toBe(1)
    expect(counter.stats.hits - before.hits).toBe(1)
    // A structurally equal but distinct object is counted afresh, with the same result.
    expect(counter.countMessage({ ...message })).toBe(first)
    expect(counter.stats.misses - before.misses).toBe(2)
  })

  test("a message whose content was replaced in place is recounted", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4o")
    const message: ChatMessage = { role: "tool", tool_call_id: "c1", content: "short" }
    const short = counter.countMessage(message)
    message.content = "a much longer tool output that has many more tokens than before"
    expect(counter.countMessage(message)).toBeGreaterThan(short)
  })

  test("tool calls count name and arguments; images a fixed estimate", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4o")
    const bare: ChatMessage = { role: "assistant", content: null }
    const calling: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "kubectl_logs", arguments: '{"pod":"api-7d9"}' } },
      ],
    }
    expect(counter.countMessage(calling) - counter.countMessage(bare)).toBeGreaterThanOrEqual(
      counter.countText("kubectl_logs") + counter.countText('{"pod":"api-7d9"}'),
    )
    const image: ChatMessage = {
      role: "user",
      content: [
        { type: "text", text: "what is this graph?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    }
    const textOnly: ChatMessage = { role: "user", content: "what is this graph?" }
    expect(counter.countMessage(image) - counter.countMessage(textOnly)).toBe(IMAGE_TOKENS)
  })

  test("tally splits by role and the total is the sum of the parts", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4.1")
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a troubleshooting assistant." },
      { role: "user", content: "Why is api-7d9 restarting?" },
      {
        role: "assistant",
        content: "Checking logs.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "kubectl_logs", arguments: '{"pod":"api-7d9"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "OOMKilled" },
      { role: "assistant", content: "It runs out of memory." },
    ]
    const counts = counter.tally(messages, SCHEMAS)
    for (const key of [
      "system_tokens",
      "user_tokens",
      "assistant_tokens",
      "tools_to_call_tokens",
      "other_tokens",
      "tools_tokens",
    ] as const) {
      expect(counts[key]).toBeGreaterThan(0)
    }
    const { total_tokens, ...parts } = counts
    expect(total_tokens).toBe(Object.values(parts).reduce((a, b) => a + b, 0))
    expect(counts.system_tokens).toBe(counter.countMessage(messages[0]!))
    expect(counts.other_tokens).toBe(counter.countMessage(messages[3]!))
    expect(counts.assistant_tokens + counts.tools_to_call_tokens).toBe(
      counter.countMessage(messages[2]!) + counter.countMessage(messages[4]!),
    )
    expect(counter.tally(messages).tools_tokens).toBe(0)
    // Repeating a history costs only the new message.
    const before = counter.stats.misses
    counter.tally([...messages, { role: "user", content: "and now?" }], SCHEMAS)
    expect(counter.stats.misses - before).toBe(1)
  })
})

describe("truncateToTokens", () => {
  test("returns short text unchanged and cuts long text at a token boundary", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4o")
    expect(counter.truncateToTokens("short", 10)).toBe("short")
    expect(counter.truncateToTokens("anything", 0)).toBe("")
    const text = "error: connection refused to 10.0.0.1:5432\n".repeat(200)
    const cut = counter.truncateToTokens(text, 50)
    expect(text.startsWith(cut)).toBe(true)
    expect(counter.countText(cut)).toBeLessThanOrEqual(50)
    expect(counter.countText(cut)).toBeGreaterThanOrEqual(48)
  })

  test("never splits a character and stays fast on megabytes", async () => {
    const counter = await TokenCounter.forModel("openai/gpt-4o")
    const emoji = "déjà 😀 vu 🚀 ".repeat(50)
    for (let n = 1; n < 30; n++) {
      const cut = counter.truncateToTokens(emoji, n)
      expect(emoji.startsWith(cut)).toBe(true)
      expect(cut).not.toContain("\uFFFD")
      expect(counter.countText(cut)).toBeLessThanOrEqual(n)
    }
    const huge = "pod api-7d9 OOMKilled, restarting container\n".repeat(200_000) // ~9 MB
    const started = performance.now()
    const cut = counter.truncateToTokens(huge, 1000)
    expect(performance.now() - started).toBeLessThan(500)
    expect(counter.countText(cut)).toBeLessThanOrEqual(1000)
    expect(cut.length).toBeGreaterThan(1000)
  })
})
