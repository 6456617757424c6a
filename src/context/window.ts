import { RequestError } from "../errors.ts"
import { costOf } from "../llm/cost.ts"
import type { TokenCounter } from "../llm/tokens.ts"
import type { ChatMessage, ChatModel, ToolSchema, Usage } from "../llm/types.ts"
import { compactable, compactedParts, latestUserIndex, summarise } from "./compaction.ts"
import { shrinkToolResults } from "./fit.ts"
import type { ContextSettings } from "./limits.ts"
import type { OutputStore } from "./output-store.ts"
import type { Compaction, CompactionEvent, CompactionMetadata, Truncation } from "./report.ts"
import { TRUNCATION_MARKER } from "./truncate.ts"

export type ContextWindowInit = {
  model: ChatModel
  counter: TokenCounter
  settings: ContextSettings
  /** Where the full text of a result cut to fit goes, for `read_tool_output` (the run's, see RunTools). */
  store: OutputStore
}

/**
 * What `fit` did: the history to send (the same array when nothing had to change), the tool
 * results it cut, and the compaction when there was one (the run then forgets which calls it
 * made: their results are only in the summary now). The loop records all of it.
 */
export type Fitted = { messages: ChatMessage[]; truncations: Truncation[]; compaction?: Compaction }

/**
 * Context-window management for one run: before every model call it compacts or cuts the history
 * so the call fits, keeping the full text of what it cuts in the run's store for `read_tool_output`.
 * Each tool result was already cut to its own budget when its message was built (tool-message.ts).
 */
/** Histories at least this long are tallied a slice at a time (each message's count is cached). */
const SLICED_TALLY_MESSAGES = 2_000

export class ContextWindow {
  private readonly model: ChatModel
  private readonly counter: TokenCounter
  private readonly settings: ContextSettings
  private readonly store: OutputStore

  constructor(init: ContextWindowInit) {
    this.model = init.model
    this.counter = init.counter
    this.settings = init.settings
    this.store = init.store
  }

  /**
   * Makes `history` fit before a model call. Over the compaction threshold (tokens of messages and
   * tool schemas plus the output reserve), the history is summarised by one extra call and
   * replaced (yielding the two compaction events); what still does not fit is cut, largest tool
   * results first. Throws a RequestError when the system prompt and the question alone are too big.
   */
  async *fit(
    history: ChatMessage[],
    tools: readonly ToolSchema[],
    signal: AbortSignal,
  ): AsyncGenerator<CompactionEvent, Fitted> {
    const { contextWindow, maxOutputTokens } = this.model.info
    const thresholdPct = this.settings.compactionThresholdPct
    const limit = Math.floor((contextWindow * thresholdPct) / 100)
    const initial = await this.tokensSliced(history, tools, signal)
    if (initial + maxOutputTokens <= limit) return { messages: history, truncations: [] }
    this.checkQuestionFits(history, tools)

    let messages: ChatMessage[] = [...history]
    const truncations: Truncation[] = []
    let compaction: { reply: string; usage: Usage; cost: number; summary: ChatMessage } | undefined
    if (compactable(history)) {
      yield {
        event: "conversation_history_compaction_start",
        data: {
          content: `Compacting the conversation history: ${initial} tokens in ${history.length} messages plus ${maxOutputTokens} reserved for the answer exceed ${thresholdPct}% of the ${contextWindow}-token context window.`,
          metadata: {
            initial_tokens: initial,
            num_messages: history.length,
            max_context_size: contextWindow,
            threshold_pct: thresholdPct,
          },
        },
      }
      const summary = await summarise(this.model, history, this.counter, signal)
      const parts = compactedParts(history, summary.reply)
      compaction = { ...summary, cost: costOf(summary.usage, this.model.info), summary: parts.summary }
      messages = [...parts.base, ...parts.round]
      // The latest tool round stays verbatim only while it leaves room to work; it is in the summary too.
      if (parts.round.length > 0 && this.tokens(messages, tools) + maxOutputTokens > limit) {
        messages = await this.shrink(messages, tools, limit, truncations, signal)
        if (this.tokens(messages, tools) + maxOutputTokens > limit) messages = parts.base
      }
    }
    if ((await this.tokensSliced(messages, tools, signal)) + maxOutputTokens > limit)
      messages = await this.shrink(messages, tools, limit, truncations, signal)
    if (compaction) messages = this.cutSummary(messages, tools, compaction.summary, limit)

    if (!compaction) return { messages, truncations }

    const compacted = this.tokens(messages, tools)
    const metadata: CompactionMetadata = {
      initial_tokens: initial,
      compacted_tokens: compacted,
      compression_ratio_pct: ratioPct(initial, compacted),
      num_messages_before: history.length,
      num_messages_after: messages.length,
      max_context_size: contextWindow,
      threshold_pct: thresholdPct,
      compaction_cost: {
        total_cost: compaction.cost,
        prompt_tokens: compaction.usage.prompt_tokens,
        completion_tokens: compaction.usage.completion_tokens,
        total_tokens: compaction.usage.total_tokens,
      },
    }
    yield {
      event: "conversation_history_compacted",
      data: {
        content: `Conversation history compacted from ${initial} to ${compacted} tokens (${metadata.compression_ratio_pct}% saved), ${history.length} messages to ${messages.length}.`,
        compaction_summary: compaction.reply,
        messages,
        metadata,
      },
    }
    return { messages, truncations, compaction: { metadata, usage: compaction.usage } }
  }

  private tokens(messages: readonly ChatMessage[], tools: readonly ToolSchema[]): number {
    return this.counter.tally(messages, tools).total_tokens
  }

  /** `tokens` for a history that may be a client's, hundreds of thousands of messages long. */
  private async tokensSliced(
    messages: readonly ChatMessage[],
    tools: readonly ToolSchema[],
    signal: AbortSignal,
  ): Promise<number> {
    if (messages.length < SLICED_TALLY_MESSAGES) return this.tokens(messages, tools)
    return (await this.counter.tallySliced(messages, tools, signal)).total_tokens
  }

  /** Fair-share cuts of tool results down to `limit` (output reserve included), added to `cuts`. */
  private async shrink(
    messages: ChatMessage[],
    tools: readonly ToolSchema[],
    limit: number,
    cuts: Truncation[],
    signal: AbortSignal,
  ): Promise<ChatMessage[]> {
    const excess = this.tokens(messages, tools) + this.model.info.maxOutputTokens - limit
    const outcome = await shrinkToolResults(messages, excess, this.counter, this.store, signal)
    cuts.push(...outcome.truncations)
    return outcome.messages
  }

  /**
   * Last resort when even the compacted history is over the threshold: the summary is cut, and
   * dropped if nothing of it fits. Aiming at the threshold, not the window, keeps the next step from
   * compacting again at once. The question is never cut (checkQuestionFits guarantees it fits).
   */
  private cutSummary(
    messages: ChatMessage[],
    tools: readonly ToolSchema[],
    summary: ChatMessage,
    limit: number,
  ): ChatMessage[] {
    const excess = this.tokens(messages, tools) + this.model.info.maxOutputTokens - limit
    if (excess <= 0) return messages
    const index = messages.indexOf(summary)
    if (summary.role !== "user" || typeof summary.content !== "string" || index === -1) return messages
    const keep = this.counter.countMessage(summary) - excess - 16
    if (keep <= 0) return messages.filter((_, i) => i !== index)
    const content = `${this.counter.truncateToTokens(summary.content, keep)}\n${TRUNCATION_MARKER}`
    return messages.map((m, i) => (i === index ? { role: "user", content } : m))
  }

  private checkQuestionFits(history: readonly ChatMessage[], tools: readonly ToolSchema[]): void {
    const { contextWindow, maxOutputTokens } = this.model.info
    const system = history[0]?.role === "system" ? [history[0]] : []
    const request = history[latestUserIndex(history)]
    const fixed = [...system, ...(request ? [request] : [])]
    const needed = this.tokens(fixed, tools)
    const available = contextWindow - maxOutputTokens
    if (needed <= available) return
    const toolTokens = this.counter.countTools(tools)
    const systemTokens = this.tokens(system, [])
    throw new RequestError(
      `The question and system prompt need ${needed} tokens (system prompt ${systemTokens}, tool definitions ${toolTokens}, question ${needed - systemTokens - toolTokens}) but model ${this.model.name} has a window of ${contextWindow} (${contextWindow} - ${maxOutputTokens} output reserve = ${available} available). ${howToFit(this.settings.toolDefinitionsPct)}`,
    )
  }
}

/** What an operator can change when the fixed part of a request does not fit the window. */
function howToFit(toolDefinitionsPct: number): string {
  return [
    "To fit: raise context_window (modelList) if the model allows more, or use a model with a larger window;",
    `lower limits.tool_definitions_budget_pct (now ${toolDefinitionsPct}%; tools past it are loaded on demand by search_tools) or disable toolsets;`,
    "turn off system prompt sections with ENABLED_PROMPTS (e.g. ENABLED_PROMPTS=intro,ask_user,general_instructions);",
    "lower max_output_tokens (modelList) or OVERRIDE_MAX_OUTPUT_TOKEN if set;",
    "or shorten the question and attached files.",
  ].join(" ")
}

/** Percentage of tokens saved, two decimals. */
export function ratioPct(initial: number, compacted: number): number {
  if (initial <= 0) return 0
  return Math.round((1 - compacted / initial) * 10_000) / 100
}
