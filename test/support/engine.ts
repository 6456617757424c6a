import { ToolCallingLLM } from "../../src/agent/tool-calling-llm.ts"
import type { ContextSettings } from "../../src/context/limits.ts"
import type { ModelOverrides } from "../../src/llm/catalog.ts"
import { createChatModel } from "../../src/llm/factory.ts"
import type { ChatMessage } from "../../src/llm/types.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import type { Toolset } from "../../src/tool/toolset.ts"
import type { FakeProvider } from "./fake-provider.ts"

export type EngineOptions = {
  toolsets?: Toolset[]
  maxSteps?: number
  model?: string
  overrides?: ModelOverrides
  limits?: Partial<ToolLimits>
  context?: ContextSettings
  timeoutMs?: number
  maxRetries?: number
}

/** A real engine (real openai client over HTTP) against a fake provider. */
export function engine(fake: FakeProvider, options: EngineOptions = {}): ToolCallingLLM {
  const model = createChatModel({
    id: options.model ?? "openai/gpt-4o",
    apiKey: "test-key",
    apiBase: fake.url,
    env: {},
    retryBaseDelayMs: 1,
    ...(options.overrides ? { overrides: options.overrides } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  })
  const executor = new ToolExecutor(options.toolsets ?? [], {
    limits: { ...DEFAULT_TOOL_LIMITS, ...options.limits },
    env: buildToolEnv(process.env),
  })
  return new ToolCallingLLM({
    model,
    toolExecutor: executor,
    ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
    ...(options.context ? { context: options.context } : {}),
  })
}

/** A fresh conversation: the test system prompt and one question. */
export const ask = (question: string): ChatMessage[] => [
  { role: "system", content: "You are a test." },
  { role: "user", content: question },
]
