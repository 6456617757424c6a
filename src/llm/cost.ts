import type { ModelInfo, Usage } from "./types.ts"

/** USD for one provider call, from the catalog or config prices (0 for unknown/local models). */
export function costOf(usage: Pick<Usage, "prompt_tokens" | "completion_tokens">, info: ModelInfo): number {
  return usage.prompt_tokens * info.inputCostPerToken + usage.completion_tokens * info.outputCostPerToken
}
