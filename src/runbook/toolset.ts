import { ToolParameter } from "../tool/parameter.ts"
import { StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
import { Tool } from "../tool/tool.ts"
import { Toolset, ToolsetTag } from "../tool/toolset.ts"
import type { RunbookCatalog } from "./catalog.ts"

class FetchRunbookTool extends Tool {
  constructor(private readonly catalog: RunbookCatalog) {
    super({
      name: "fetch_runbook",
      description: "Read a runbook from the catalog listed in the prompt, by its id.",
      parameters: {
        runbook_id: new ToolParameter({ type: "string", description: "The runbook id from the catalog" }),
      },
    })
  }

  protected async invoke(params: Record<string, unknown>): Promise<StructuredToolResult> {
    const id = String(params.runbook_id)
    const entry = this.catalog.get(id)
    if (!entry) {
      const ids = this.catalog.entries.map((e) => e.id).join(", ") || "none"
      return StructuredToolResult.error(`No runbook "${id}". Available runbooks: ${ids}.`)
    }
    return new StructuredToolResult({
      status: ToolResultStatus.SUCCESS,
      data: this.catalog.read(entry),
      invocation: entry.path,
    })
  }
}

export function createRunbookToolset(catalog: RunbookCatalog | undefined): Toolset {
  // No runbooks is an ordinary setup, not a failure: the toolset is simply off.
  const hasRunbooks = catalog !== undefined && catalog.entries.length > 0
  return new Toolset({
    name: "runbook",
    description: "Operator runbooks from the configured folders (set runbooks: [folder, ...] to enable)",
    enabled: hasRunbooks,
    tools: catalog ? [new FetchRunbookTool(catalog)] : [],
    tags: [ToolsetTag.CORE],
  })
}
