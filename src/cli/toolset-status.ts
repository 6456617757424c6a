import { table } from "../commands/output.ts"
import type { ContainmentInfo } from "../tool/containment/index.ts"
import { containmentLine } from "../tool/containment/report.ts"
import type { Toolset } from "../tool/toolset.ts"

/** One toolset as `dupin toolsets --json` and `/tools` show it. */
export type ToolsetStatusRow = {
  name: string
  status: string
  error: string | null
  /** When its prerequisites were last checked (ISO 8601), null if never. */
  checked_at: string | null
  docs_url: string | null
  tools: string[]
  /** MCP servers only: how dupin reaches it (stdio, streamable-http, sse). */
  transport?: string
  /** MCP servers only: the protocol version negotiated, null until connected. */
  protocol_version?: string | null
}

export function toolsetStatusRows(toolsets: readonly Toolset[]): ToolsetStatusRow[] {
  return toolsets.map((t) => ({
    name: t.name,
    status: t.status,
    error: t.error ?? null,
    checked_at: t.checkedAt?.toISOString() ?? null,
    docs_url: t.docsUrl ?? null,
    tools: t.tools.map((tool) => tool.name),
    ...t.statusFields,
  }))
}

/** The table; with `containment`, one more line saying how the tools in it are contained. */
export function toolsetStatusTable(rows: readonly ToolsetStatusRow[], containment?: ContainmentInfo): string {
  const status = table(
    ["TOOLSET", "STATUS", "CHECKED", "ERROR"],
    rows.map((r) => [
      r.name,
      r.transport ? `${r.status} (mcp ${r.transport})` : r.status,
      r.checked_at ? r.checked_at.slice(11, 19) : "-",
      r.error ? `${r.error}${r.docs_url ? ` (see ${r.docs_url})` : ""}` : "",
    ]),
  )
  return containment ? `${status}\n\n${containmentLine(containment)}` : status
}
