import { flag, listOption, type ParsedArgs, stringOption, UsageError } from "../../commands/args.ts"
import { applyLogLevel, loadCliConfig } from "../../commands/load-config.ts"
import { writeStdout } from "../../commands/output.ts"
import { createRuntime } from "../../runtime/runtime.ts"
import { containmentInfo } from "../../tool/containment/index.ts"
import { toolsetStatusRows, toolsetStatusTable } from "../toolset-status.ts"

/**
 * `dupin toolsets [list|check]`. Both run the prerequisite checks (a status means nothing before
 * them); `check` forgets any earlier result first. A failed toolset is a report, not a failure of
 * the command: a bastion without docker is normal, so the exit code stays 0 (use --json to gate).
 */
export async function toolsetsCommand(args: ParsedArgs): Promise<number> {
  const [action = "list", ...extra] = args.positionals
  if ((action !== "list" && action !== "check") || extra.length > 0) {
    throw new UsageError(
      `dupin toolsets takes list or check, not "${[action, ...extra].join(" ")}" (see: dupin toolsets --help)`,
    )
  }
  applyLogLevel("WARN")
  // --toolset-file adds files as `ask` does: the way to check a HolmesGPT file before using it.
  const executor = createRuntime(
    loadCliConfig({
      configPath: stringOption(args, "config"),
      toolsetFiles: listOption(args, "toolset-file"),
    }),
  ).executor
  if (action === "check") await executor.recheck()
  else await executor.ensureReady()

  const rows = toolsetStatusRows(executor.toolsets)
  // --json stays the list of toolsets it always was; containment is in the table and /api/info.
  await writeStdout(
    flag(args, "json") ? JSON.stringify(rows, null, 2) : toolsetStatusTable(rows, containmentInfo()),
  )
  return 0
}
