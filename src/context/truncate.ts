import type { TokenCounter } from "../llm/tokens.ts"

export const TRUNCATION_MARKER = "[TRUNCATED]"

/** Above this many characters a token count is extrapolated from the prefix instead of computed. */
const EXACT_COUNT_MAX_CHARS = 400_000

export type TruncationOutcome = {
  content: string
  /** Present when the content was cut. */
  cut?: { endIndex: number; originalTokenCount: number }
}

/**
 * Cuts `content` from its end so it fits `budget` tokens, marker included. The work is bounded by
 * the budget, not by the content: megabytes of output are never tokenized whole.
 */
export function truncateToBudget(content: string, budget: number, counter: TokenCounter): TruncationOutcome {
  // Fewer characters than tokens allowed cannot exceed the budget: no tokenizer work at all.
  if (content.length <= budget) return { content }
  const markerTokens = counter.countText(`\n${TRUNCATION_MARKER}`)
  if (content.length <= EXACT_COUNT_MAX_CHARS) {
    const total = counter.countText(content)
    if (total <= budget) return { content }
    const kept = counter.truncateToTokens(content, Math.max(0, budget - markerTokens))
    return { content: `${kept}\n${TRUNCATION_MARKER}`, cut: { endIndex: kept.length, originalTokenCount: total } }
  }
  const kept = counter.truncateToTokens(content, Math.max(0, budget - markerTokens))
  // Extrapolate from the part we did tokenize; documented as an estimate for huge outputs.
  const ratio = kept.length > 0 ? Math.max(1, budget - markerTokens) / kept.length : 0.25
  const estimate = Math.ceil(content.length * ratio)
  return { content: `${kept}\n${TRUNCATION_MARKER}`, cut: { endIndex: kept.length, originalTokenCount: estimate } }
}
