import { flag, noPositionals, type ParsedArgs, stringOption } from "../../commands/args.ts"
import { applyLogLevel, loadCliConfig } from "../../commands/load-config.ts"
import { table, writeStdout } from "../../commands/output.ts"
import { processEnv } from "../../config/env.ts"
import { resolveModelInfo } from "../../llm/catalog.ts"

type ModelRow = {
  name: string
  model: string
  context_window: number
  max_output_tokens: number
  supports_vision: boolean
}

/**
 * `dupin models`: the names a request may pass as `model`, like `GET /api/model`, with catalog
 * facts. Reads only the catalog: no provider key is needed to list models.
 */
export async function modelsCommand(args: ParsedArgs): Promise<number> {
  noPositionals(args, "models")
  applyLogLevel("WARN")
  const config = loadCliConfig({ configPath: stringOption(args, "config") })
  const env = processEnv()
  const rows: ModelRow[] = config.modelNames().map((name) => {
    const entry = config.modelList?.[name]
    const info = resolveModelInfo(entry?.model ?? name, config.modelOverrides(name), env)
    return {
      name,
      model: info.id,
      context_window: info.contextWindow,
      max_output_tokens: info.maxOutputTokens,
      supports_vision: info.supportsVision,
    }
  })
  if (flag(args, "json")) {
    await writeStdout(JSON.stringify({ model_name: rows.map((r) => r.name), models: rows }, null, 2))
    return 0
  }
  if (rows.length === 0) {
    await writeStdout(
      "No model configured: pass --model, set MODEL, or set model: / modelList: in the config file.",
    )
    return 0
  }
  await writeStdout(
    table(
      ["NAME", "MODEL", "CONTEXT", "OUTPUT", "VISION"],
      rows.map((r) => [
        r.name,
        r.model,
        String(r.context_window),
        String(r.max_output_tokens),
        r.supports_vision ? "yes" : "no",
      ]),
    ),
  )
  return 0
}
