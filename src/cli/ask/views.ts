import type { Metadata } from "../../agent/events.ts"
import { table } from "../../commands/output.ts"
import type { ToolExecutor } from "../../tool/executor.ts"
import { toolsetStatusRows, toolsetStatusTable } from "../toolset-status.ts"

/** `/tools`: every toolset's status, then the tools the model can call. */
export function toolsView(executor: ToolExecutor): string {
  const tools = Object.values(executor.toolsByName)
    .map((t) => `  ${t.name}${t.toolset ? ` [${t.toolset.name}]` : ""}`)
    .sort()
  return `${toolsetStatusTable(toolsetStatusRows(executor.toolsets))}\n\nTools (${tools.length}):\n${tools.join("\n")}\n`
}

/** `/context`: the last answer's token use by role, against the model's context window. */
export function contextView(metadata: Metadata | undefined): string {
  if (!metadata) return "No answer yet in this conversation.\n"
  const t = metadata.tokens
  const pct = metadata.max_tokens > 0 ? ((t.total_tokens / metadata.max_tokens) * 100).toFixed(1) : "?"
  const n = (v: number) => v.toLocaleString("en-US")
  const rows: [string, number][] = [
    ["system prompt", t.system_tokens],
    ["user messages", t.user_tokens],
    ["assistant messages", t.assistant_tokens],
    ["tool calls", t.tools_to_call_tokens],
    ["tool results", t.other_tokens],
    ["tool definitions", t.tools_tokens],
  ]
  const body = table(
    ["ROLE", "TOKENS"],
    rows.map(([role, v]) => [role, n(v)]),
  )
  const costs = metadata.costs
  return `Context: ${n(t.total_tokens)} of ${n(metadata.max_tokens)} tokens (${pct}%), ${n(metadata.max_output_tokens)} reserved for output\n${body}\nLast answer: ${costs.num_llm_calls} model calls, ${n(costs.total_tokens)} tokens, $${costs.total_cost.toFixed(4)}\n`
}
