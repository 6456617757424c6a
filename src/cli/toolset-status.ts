import { table } from "../commands/output.ts"
import type { ContainmentInfo } from "../tool/containment/index.ts"
import { containmentLine } from "../tool/containment/report.ts"
import type { Toolset } from "../tool/toolset.ts"
import { toolsetState } from "../tool/toolset-status.ts"

const SHOWN = ["name", "status", "error", "checked_at", "docs_url", "tools"] as const

/** One toolset as `dupin toolsets --json` and `/tools` show it. */
export type ToolsetStatusRow = ReturnType<typeof toolsetState<(typeof SHOWN)[number]>>

export function toolsetStatusRows(toolsets: readonly Toolset[]): ToolsetStatusRow[] {
  return toolsets.map((t) => toolsetState(t, SHOWN))
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
