import { Type } from "@sinclair/typebox"
import { createRunbookToolset } from "../runbook/toolset.ts"
import type { ToolsetFactory } from "./kind.ts"

/**
 * The registry entry for `fetch_runbook`: on when the configured folders hold runbooks;
 * `toolsets.runbook.enabled: false` keeps it off. Takes no config: the folders are the top-level
 * `runbooks:` setting, loaded once by the runtime and shared with the prompt.
 */
export const runbookToolset: ToolsetFactory = {
  name: "runbook",
  configSchema: Type.Object({}),
  create(settings, context) {
    const toolset = createRunbookToolset(context.runbooks)
    if (settings.enabled === false) toolset.enabled = false
    return toolset
  },
}
