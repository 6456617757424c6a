import type { CompactionMetadata, Truncation } from "../context/report.ts"
import { costOf } from "../llm/cost.ts"
import type { TokenCounter } from "../llm/tokens.ts"
import type { ChatMessage, ModelInfo, ToolSchema, Usage } from "../llm/types.ts"
import type { DeferralReport } from "./deferred-tools.ts"
import type { Costs, Metadata } from "./events.ts"

const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }

/** Per-request figures: the latest provider usage, running totals, truncations, compactions. */
export class Accounting {
  usage: Usage = ZERO_USAGE
  readonly costs: Costs = {
    total_cost: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    num_llm_calls: 0,
  }
  readonly truncations: Truncation[] = []
  readonly compactions: CompactionMetadata[] = []

  constructor(
    readonly info: ModelInfo,
    readonly counter: TokenCounter,
  ) {}

  /** Records one provider call and returns its cost in USD. */
  record(usage: Usage): number {
    this.usage = usage
    const cost = costOf(usage, this.info)
    this.costs.total_cost += cost
    this.costs.prompt_tokens += usage.prompt_tokens
    this.costs.completion_tokens += usage.completion_tokens
    this.costs.total_tokens += usage.total_tokens
    this.costs.num_llm_calls += 1
    return cost
  }

  /** `deferred`: what deferral did in the run (RunTools.report), when something was held back. */
  metadata(
    messages: readonly ChatMessage[],
    tools: readonly ToolSchema[],
    deferred?: DeferralReport,
  ): Metadata {
    const metadata: Metadata = {
      usage: { ...this.usage },
      tokens: this.counter.tally(messages, tools),
      max_tokens: this.info.contextWindow,
      max_output_tokens: this.info.maxOutputTokens,
      costs: { ...this.costs },
    }
    if (this.truncations.length > 0) metadata.truncations = [...this.truncations]
    const last = this.compactions.at(-1)
    if (last) metadata.compaction = { count: this.compactions.length, last }
    if (deferred) metadata.deferred_tools = deferred
    return metadata
  }
}
