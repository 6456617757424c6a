import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { EngineSettings } from "../../src/eval/run-case.ts"
import type { EvalPlan } from "../../src/eval/runner.ts"
import { createChatModel } from "../../src/llm/factory.ts"
import type { ChatModel, CompletionRequest } from "../../src/llm/types.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import type { FakeProvider } from "../support/fake-provider.ts"

/** A folder of case folders: `{name: {file: text}}`, written to a fresh temp dir. */
export function caseTree(cases: Record<string, Record<string, string>>): string {
  const root = mkdtempSync(join(tmpdir(), "dupin-eval-"))
  for (const [name, files] of Object.entries(cases)) {
    mkdirSync(join(root, name), { recursive: true })
    for (const [file, text] of Object.entries(files)) writeFileSync(join(root, name, file), text)
  }
  return root
}

/** A three-part mock file. */
export function mockText(
  tool: string,
  match: Record<string, unknown> | null,
  output: string,
  toolset = "kubernetes/core",
): string {
  return `${JSON.stringify({ toolset_name: toolset, tool_name: tool, match_params: match })}\n${JSON.stringify({ status: "success", error: null, return_code: 0 })}\n${output}`
}

/**
 * A model in this process that answers `content` to every request (`onRequest` sees each first):
 * for tests that need no HTTP provider.
 */
export function localModel(
  name: string,
  content: (request: CompletionRequest) => string,
  onRequest: (request: CompletionRequest) => void | Promise<void> = () => {},
): ChatModel {
  return {
    name,
    info: {
      id: `openai/${name}`,
      provider: "openai",
      contextWindow: 128_000,
      maxOutputTokens: 4096,
      supportsVision: false,
      inputCostPerToken: 0,
      outputCostPerToken: 0,
      known: false,
    },
    complete: async (request) => {
      await onRequest(request)
      return {
        content: content(request),
        reasoning: null,
        toolCalls: [],
        finishReason: "stop",
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }
    },
  }
}

/** A real model (openai client over HTTP) on the fake provider; no retries of its own. */
export function fakeModel(fake: FakeProvider, id = "openai/gpt-4.1"): ChatModel {
  return createChatModel({
    id,
    apiKey: "test",
    apiBase: fake.url,
    env: {},
    maxRetries: 0,
    retryBaseDelayMs: 1,
  })
}

export const ENGINE: EngineSettings = { maxSteps: 10, context: undefined, limits: DEFAULT_TOOL_LIMITS }

export function plan(over: Partial<EvalPlan> & Pick<EvalPlan, "cases" | "models">): EvalPlan {
  return {
    judge: over.models[0] as ChatModel,
    iterations: 1,
    parallel: 2,
    deadlineMs: 10_000,
    patience: { attempts: 3, baseDelayMs: 1 },
    engine: ENGINE,
    ...over,
  }
}
