import type { Metadata } from "../../agent/events.ts"
import { table } from "../../commands/output.ts"
import type { ToolExecutor } from "../../tool/executor.ts"
import type { Tool } from "../../tool/tool.ts"
import { toolsetStatusRows, toolsetStatusTable } from "../toolset-status.ts"

/**
 * `/tools`: every toolset's status, then the tools the model can call, each with the first line of
 * its description and whether a call waits for the user's approval.
 */
export function toolsView(executor: ToolExecutor, width = 120): string {
  const tools = Object.values(executor.toolsByName).sort((a, b) => a.name.localeCompare(b.name))
  const rows = tools.map((tool) => {
    const approval = approvalMark(tool)
    const summary = firstLine(tool.description)
    return { name: tool.name, toolset: tool.toolset?.name ?? "", approval, summary }
  })
  const nameWidth = Math.max(0, ...rows.map((r) => r.name.length))
  const lines = rows.map((r) => {
    const head = `  ${r.approval ? "!" : " "} ${r.name.padEnd(nameWidth)}  `
    const room = Math.max(20, width - head.length)
    const text = `${r.summary}${r.toolset ? ` [${r.toolset}]` : ""}${r.approval ? ` (${r.approval})` : ""}`
    return `${head}${text.length > room ? `${text.slice(0, room - 1)}…` : text}`
  })
  const marked = rows.some((r) => r.approval) ? "; ! = asks for approval" : ""
  return `${toolsetStatusTable(toolsetStatusRows(executor.toolsets))}\n\nTools (${tools.length}${marked}):\n${lines.join("\n")}\n`
}

/** Why a tool's calls wait for approval, or undefined when they run at once. */
function approvalMark(tool: Tool): string | undefined {
  // The shell tool decides per command; an empty call tells nothing about it.
  if (tool.name === "run_bash_command") return "approval outside its allow list"
  let verdict: boolean | string
  try {
    verdict = tool.requiresApproval({})
  } catch {
    return undefined
  }
  return verdict ? "approval" : undefined
}

function firstLine(text: string): string {
  return (text.trim().split(/\r?\n/)[0] ?? "").trim()
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
