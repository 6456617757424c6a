import type { TokenCounter } from "../llm/tokens.ts"
import { Slicer } from "../offloop/yield.ts"

export const TRUNCATION_MARKER = "[TRUNCATED]"

/**
 * A BPE token covers at least one UTF-8 byte and a UTF-16 unit is at most three bytes, so text of
 * n units has at most 3n tokens: shorter text fits without any tokenizer work.
 */
const MAX_TOKENS_PER_CHAR = 3
/** More characters per token than this is implausible; text longer than budget × 8 is over budget. */
export const MAX_CHARS_PER_TOKEN = 8

/** Whether `truncateToBudget` could cut `content` (shorter text fits without any tokenizer work). */
export function mayCut(content: string, budget: number): boolean {
  return content.length * MAX_TOKENS_PER_CHAR > budget
}

export type TruncationOutcome = {
  content: string
  /** Present when the content was cut. */
  cut?: {
    /** Characters of the original kept (the content starts with exactly these). */
    endIndex: number
    /** Exact below budget × 8 characters; extrapolated from the kept prefix above (an estimate). */
    originalTokenCount: number
  }
}

/**
 * Cuts `content` from its end at a token boundary so that it fits `budget` tokens including the
 * optional `note` and the final marker. The result is `prefix`, the note, then `[TRUNCATED]` last
 * (CONTRACT §5: a truncated result ends with the marker). The work is bounded by the budget, not by
 * the content: megabytes of output are never tokenized whole. It still is up to a budget's worth of
 * tokenizing per result (tens of milliseconds, eight results per step), so it runs a slice at a time.
 */
export async function truncateToBudget(
  content: string,
  budget: number,
  counter: TokenCounter,
  note?: (kept: string) => string,
  slicer: Slicer = new Slicer(),
): Promise<TruncationOutcome> {
  if (!mayCut(content, budget)) return { content }
  let original: number | undefined
  if (content.length <= budget * MAX_CHARS_PER_TOKEN) {
    original = await counter.countTextSliced(content, slicer)
    if (original <= budget) return { content }
  }
  // The note's size depends on where the cut falls (line numbers): size it on the longest prefix
  // that could be kept, plus slack for a longer number.
  const widest = note ? `${note(content.slice(0, budget * MAX_CHARS_PER_TOKEN))}\n` : ""
  const reserve = counter.countText(`\n${widest}${TRUNCATION_MARKER}`) + 8
  const kept = await counter.truncateToTokensSliced(content, Math.max(0, budget - reserve), slicer)
  const suffix = `\n${note ? `${note(kept)}\n` : ""}${TRUNCATION_MARKER}`
  original ??= await estimateTokens(content.length, kept, counter, slicer)
  return { content: `${kept}${suffix}`, cut: { endIndex: kept.length, originalTokenCount: original } }
}

/** Extrapolates a token count from the density of a prefix we did tokenize. */
async function estimateTokens(
  length: number,
  prefix: string,
  counter: TokenCounter,
  slicer: Slicer,
): Promise<number> {
  if (prefix.length === 0) return Math.ceil(length / 4)
  return Math.ceil((length * (await counter.countTextSliced(prefix, slicer))) / prefix.length)
}
