/**
 * The composition root: what a Config becomes when dupin runs. Config holds settings only; a
 * Runtime is built from it once per entry point (`serve`, `ask`, a library user, an eval run) and
 * handed to each face, which takes nothing else. It owns what lives as long as the process: the
 * toolsets (MCP connections included), the tool executor, the runbook catalog, the chat models and
 * one engine per model.
 */
import { createEngine } from "../agent/create-engine.ts"
import type { ToolCallingLLM } from "../agent/tool-calling-llm.ts"
import type { Config } from "../config/config.ts"
import { createChatModel } from "../llm/model-factory.ts"
import type { ChatModel } from "../llm/types.ts"
import { RunbookCatalog } from "../runbook/catalog.ts"
import { containmentConfigured, warmToolSandbox } from "../tool/containment/index.ts"
import { ToolExecutor } from "../tool/executor.ts"
import { buildToolEnv } from "../tool/tool-env.ts"
import { assembleToolsets } from "../toolset/assemble.ts"
import { applyContainment } from "./containment.ts"

export type ModelChoice = { providerId?: boolean }

export type Runtime = {
  readonly config: Config
  /** The tool executor over built-in, configured, custom, additional and MCP toolsets. */
  readonly executor: ToolExecutor
  /** The loaded runbook catalog, or undefined when no runbook folder is configured. */
  readonly runbooks: RunbookCatalog | undefined
  /**
   * The chat model `name` (a modelList key), the default one without a name; built once each.
   * `providerId`: without a modelList, any provider/model id, as `--model` takes it.
   */
  model(name?: string, options?: ModelChoice): ChatModel
  /** The engine door over `model(name)` and the executor; built once per model. */
  engine(name?: string, options?: ModelChoice): ToolCallingLLM
  /**
   * Starts the tool sandbox now (on another core), before the toolsets are built: their
   * prerequisite checks are its first runs, and a first question waits for those. For entry
   * points that will run tools at once (`serve`, `ask`); otherwise the first run starts it.
   */
  warmToolSandbox(): void
  /** Stops what the toolsets hold open (MCP servers); the runtime is not used afterwards. */
  close(): Promise<void>
}

/**
 * The runbooks and the toolsets are read on first use, so an entry point reports a bad model or key
 * before a broken toolset file, and a library user who only asks for a model loads no toolset.
 */
export function createRuntime(config: Config): Runtime {
  let runbooks: RunbookCatalog | null | undefined
  let executor: ToolExecutor | undefined
  const catalog = (): RunbookCatalog | undefined => {
    runbooks ??= config.runbooks.length > 0 ? RunbookCatalog.load([...config.runbooks]) : null
    return runbooks ?? undefined
  }
  const tools = (): ToolExecutor => {
    if (executor) return executor
    // A library embedder that built its Config in code is contained like `serve` and `ask`
    // (issue 19.3), with the Config's own hidden paths; one that configured containment keeps it.
    if (!containmentConfigured()) applyContainment(config.security)
    executor = new ToolExecutor(
      assembleToolsets({
        config: config.toolsets,
        configFileName: config.configFile,
        customFiles: config.customToolsets,
        additional: config.additionalToolsets,
        mcpServers: config.mcpServers,
        flags: config.enableBash ? { bash: { enabled: true } } : {},
        context: { env: config.env, runbooks: catalog(), protectedPaths: config.security.hiddenPaths },
      }),
      { limits: config.toolLimits, env: toolEnv() },
    )
    return executor
  }
  const models = new Map<string, ChatModel>()
  let env: Record<string, string> | undefined
  const toolEnv = () => {
    env ??= buildToolEnv(config.env)
    return env
  }
  const engines = new Map<string, ToolCallingLLM>()

  const model = (name?: string, options?: ModelChoice): ChatModel => {
    // The name is checked on every call, before the cache: a provider id built for the CLI's
    // `/model` must not pass as a request's model.
    const init = config.modelInit(name, options)
    const key = init.name ?? init.id
    let built = models.get(key)
    if (!built) {
      built = createChatModel(init)
      models.set(key, built)
    }
    return built
  }

  return {
    config,
    get executor() {
      return tools()
    },
    get runbooks() {
      return catalog()
    },
    model,
    engine(name, options) {
      const chosen = model(name, options)
      let engine = engines.get(chosen.name)
      if (!engine) {
        engine = createEngine({
          model: chosen,
          toolExecutor: tools(),
          maxSteps: config.maxSteps,
          context: config.context,
        })
        engines.set(chosen.name, engine)
      }
      return engine
    },
    warmToolSandbox() {
      if (!containmentConfigured()) applyContainment(config.security)
      warmToolSandbox(toolEnv())
    },
    async close() {
      if (executor) await Promise.all(executor.toolsets.map((t) => t.close()))
    },
  }
}
