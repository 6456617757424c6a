import type { TokenCounter } from "../llm/tokens.ts"
import type { ChatMessage, ToolMessage } from "../llm/types.ts"
import { Slicer } from "../offloop/yield.ts"
import { countLinesSliced } from "./output-pager.ts"
import type { OutputStore } from "./output-store.ts"
import type { Truncation } from "./report.ts"
import { pagingNote, withoutTruncationSuffix } from "./tool-result.ts"
import { truncateToBudget } from "./truncate.ts"

/** A tool result keeps at least this many tokens when results share what is left of the window. */
export const MIN_TOOL_RESULT_TOKENS = 64

/**
 * Water-filling: the largest cap c with Σ min(size, c) ≤ total, so small items stay whole and the
 * large ones share the rest equally. Infinity when everything fits.
 */
export function fairShareCap(sizes: readonly number[], total: number): number {
  const sorted = [...sizes].sort((a, b) => a - b)
  let remaining = total
  for (let i = 0; i < sorted.length; i++) {
    const size = sorted[i] ?? 0
    const share = Math.floor(remaining / (sorted.length - i))
    if (size > share) return Math.max(0, share)
    remaining -= size
  }
  return Number.POSITIVE_INFINITY
}

export type ShrinkOutcome = { messages: ChatMessage[]; truncations: Truncation[] }

/**
 * Cuts the largest tool results of `messages` to a fair share so the history gets `excess` tokens
 * smaller (no result below MIN_TOOL_RESULT_TOKENS, so it may save less). Cut messages are new
 * objects (token counts are cached per object); a result not yet in `store` is put there so the
 * model can still page through what it had.
 */
export async function shrinkToolResults(
  messages: readonly ChatMessage[],
  excess: number,
  counter: TokenCounter,
  store: OutputStore,
  signal?: AbortSignal,
): Promise<ShrinkOutcome> {
  if (excess <= 0) return { messages: [...messages], truncations: [] }
  const sizes = messages.map((m) => (m.role === "tool" ? counter.countMessage(m) : 0))
  const toolSizes = sizes.filter((_, i) => messages[i]?.role === "tool")
  const total = toolSizes.reduce((a, b) => a + b, 0)
  const cap = Math.max(MIN_TOOL_RESULT_TOKENS, fairShareCap(toolSizes, total - excess))
  const names = toolNames(messages)
  const truncations: Truncation[] = []
  const slicer = new Slicer(signal)
  const out: ChatMessage[] = []
  for (const [i, m] of messages.entries()) out.push(await shrunk(m, i))
  return { messages: out, truncations }

  async function shrunk(m: ChatMessage, i: number): Promise<ChatMessage> {
    if (m.role !== "tool" || (sizes[i] ?? 0) <= cap) return m
    const base = withoutTruncationSuffix(m.content)
    const name = m.name ?? names.get(m.tool_call_id) ?? "unknown"
    // When the store already has it, it holds the full output, whose line count we do not redo.
    const stored = store.has(m.tool_call_id)
    if (!stored) store.put(m.tool_call_id, name, base)
    const total = stored ? undefined : await countLinesSliced(base, slicer)
    const cut = await truncateToBudget(base, cap, counter, pagingNote(m.tool_call_id, total), slicer)
    if (!cut.cut) return m
    truncations.push({
      tool_call_id: m.tool_call_id,
      start_index: 0,
      end_index: cut.cut.endIndex,
      tool_name: name,
      original_token_count: cut.cut.originalTokenCount,
    })
    return { ...m, content: cut.content } satisfies ToolMessage
  }
}

/** tool_call_id → tool name, from the assistant messages' calls. */
export function toolNames(messages: readonly ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>()
  for (const m of messages) {
    if (m.role !== "assistant") continue
    for (const call of m.tool_calls ?? []) names.set(call.id, call.function.name)
  }
  return names
}
