import type { Costs, StreamMessage } from "../agent/events.ts"
import { MetricsRegistry } from "./metrics.ts"

/** The label value of every tool call the model made to a tool that does not exist. */
export const UNKNOWN_TOOL = "unknown"

const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 1, 2.5, 5, 10, 30, 60, 120, 300]

/** The server's metrics (CONTRACT §5 `/metrics`). */
export class ServerMetrics {
  readonly registry = new MetricsRegistry()
  readonly requests = this.registry.counter(
    "dupin_http_requests_total",
    "HTTP requests by method, route and status.",
  )
  readonly latency = this.registry.histogram(
    "dupin_http_request_duration_seconds",
    "Time to the response headers, by method and route.",
    LATENCY_BUCKETS,
  )
  readonly llmCalls = this.registry.counter("dupin_llm_calls_total", "Provider calls by model.")
  readonly tokens = this.registry.counter(
    "dupin_llm_tokens_total",
    "Provider tokens by model and kind (prompt, completion).",
  )
  readonly cost = this.registry.counter("dupin_llm_cost_usd_total", "Provider cost in US dollars by model.")
  readonly toolCalls = this.registry.counter(
    "dupin_tool_calls_total",
    "Tool calls by tool and result status.",
  )
  readonly approvals = this.registry.counter(
    "dupin_approvals_total",
    "Tool calls by approval outcome (requested, approved, denied).",
  )
  readonly compactions = this.registry.counter("dupin_compactions_total", "History compactions by model.")
  readonly truncations = this.registry.counter(
    "dupin_truncations_total",
    "Tool results cut to fit the context, by tool.",
  )
  readonly activeStreams = this.registry.gauge("dupin_active_streams", "SSE chat streams currently open.")
  readonly chatErrors = this.registry.counter(
    "dupin_chat_errors_total",
    "Chat runs that failed, by error code.",
  )

  /**
   * Follows one chat run's events; provider figures arrive as running totals, so it keeps the last.
   * Tool names come from the model, which may invent any number of them: only names `isKnownTool`
   * accepts become label values, the rest count as `unknown`, so label cardinality stays bounded
   * by the configured tools.
   */
  observer(model: string, isKnownTool: (name: string) => boolean): (message: StreamMessage) => void {
    const tool = (name: string) => (isKnownTool(name) ? name : UNKNOWN_TOOL)
    let last: Costs = {
      total_cost: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      num_llm_calls: 0,
    }
    let truncated = 0
    const fromMetadata = (costs: Costs, truncations: ReadonlyArray<{ tool_name: string }> | undefined) => {
      this.llmCalls.inc({ model }, costs.num_llm_calls - last.num_llm_calls)
      this.tokens.inc({ model, kind: "prompt" }, costs.prompt_tokens - last.prompt_tokens)
      this.tokens.inc({ model, kind: "completion" }, costs.completion_tokens - last.completion_tokens)
      this.cost.inc({ model }, costs.total_cost - last.total_cost)
      last = costs
      for (const t of truncations?.slice(truncated) ?? []) this.truncations.inc({ tool: tool(t.tool_name) })
      truncated = Math.max(truncated, truncations?.length ?? 0)
    }
    return (message) => {
      switch (message.event) {
        case "token_count":
        case "ai_message":
        case "ai_answer_end":
        case "approval_required":
          fromMetadata(message.data.metadata.costs, message.data.metadata.truncations)
          if (message.event === "approval_required") {
            this.approvals.inc({ outcome: "requested" }, message.data.pending_approvals.length)
          }
          return
        case "tool_calling_result": {
          this.toolCalls.inc({ tool: tool(message.data.name), status: message.data.result.status })
          return
        }
        case "conversation_history_compacted":
          this.compactions.inc({ model })
          return
        case "start_tool_calling":
        case "ai_message_delta":
        case "conversation_history_compaction_start":
        case "error":
          return
        default: {
          const unexpected: never = message
          void unexpected
        }
      }
    }
  }
}
