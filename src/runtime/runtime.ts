/**
 * The composition root: what a Config becomes when dupin runs. Config holds settings only; this
 * module builds from them the runbook catalog, the toolsets (through the toolset registry), the
 * tool executor and the console engine. Each is built once per Config and shared, as a server
 * shares one executor across requests.
 */
import { ToolCallingLLM } from "../agent/tool-calling-llm.ts"
import type { Config } from "../config/config.ts"
import { RunbookCatalog } from "../runbook/catalog.ts"
import { containmentConfigured } from "../tool/containment/index.ts"
import { ToolExecutor } from "../tool/executor.ts"
import { buildToolEnv } from "../tool/tool-env.ts"
import { assembleToolsets } from "../toolset/assemble.ts"
import { applyContainment } from "./containment.ts"

const catalogs = new WeakMap<Config, RunbookCatalog | null>()
const executors = new WeakMap<Config, ToolExecutor>()

/** The loaded runbook catalog, or undefined when no runbook folder is configured. */
export function runbookCatalogFor(config: Config): RunbookCatalog | undefined {
  let catalog = catalogs.get(config)
  if (catalog === undefined) {
    catalog = config.runbooks.length > 0 ? RunbookCatalog.load([...config.runbooks]) : null
    catalogs.set(config, catalog)
  }
  return catalog ?? undefined
}

/** The tool executor over built-in, configured, custom and additional toolsets. */
export function toolExecutorFor(config: Config): ToolExecutor {
  let executor = executors.get(config)
  if (!executor) {
    // A library embedder that built its Config in code is contained like `serve` and `ask`
    // (issue 19.3), with the Config's own hidden paths; one that configured containment keeps it.
    if (!containmentConfigured()) applyContainment(config.security)
    const toolsets = assembleToolsets({
      config: config.toolsets,
      configFileName: config.configFile,
      customFiles: config.customToolsets,
      additional: config.additionalToolsets,
      mcpServers: config.mcpServers,
      flags: config.enableBash ? { bash: { enabled: true } } : {},
      context: {
        env: config.env,
        runbooks: runbookCatalogFor(config),
        protectedPaths: config.security.hiddenPaths,
      },
    })
    executor = new ToolExecutor(toolsets, { limits: config.toolLimits, env: buildToolEnv(config.env) })
    executors.set(config, executor)
  }
  return executor
}

/** The spec's `create_console_toolcalling_llm()`: the engine over the configured model and tools. */
export function createConsoleToolCallingLLM(config: Config, modelName?: string): ToolCallingLLM {
  return new ToolCallingLLM({
    model: config.createModel(modelName),
    toolExecutor: toolExecutorFor(config),
    maxSteps: config.maxSteps,
    context: config.context,
  })
}
