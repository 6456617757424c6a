/** Context-window settings (CONTRACT §3), resolved from the environment by config/. */
export type ContextSettings = {
  /** Percent of the window a single tool result may take. */
  toolResultPct: number
  /** Absolute cap on a single tool result, in tokens. */
  toolResultMaxTokens: number
  /** Percent of the window at which the history is compacted. */
  compactionThresholdPct: number
  /**
   * Percent of the window the enabled tools' definitions may take before the rest are offered
   * through the tool search tool (deferred tools) instead of up front.
   */
  toolDefinitionsPct: number
}

export const DEFAULT_CONTEXT_SETTINGS: ContextSettings = {
  toolResultPct: 15,
  toolResultMaxTokens: 25_000,
  compactionThresholdPct: 95,
  toolDefinitionsPct: 20,
}

/** Tokens one tool result may take in a window of `contextWindow` tokens. */
export function toolResultBudget(contextWindow: number, settings: ContextSettings): number {
  return Math.max(
    1,
    Math.floor(Math.min((contextWindow * settings.toolResultPct) / 100, settings.toolResultMaxTokens)),
  )
}
