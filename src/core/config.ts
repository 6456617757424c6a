/** Public entry point `dupin/config`. */
import type { ToolCallingLLM } from "../agent/tool-calling-llm.ts"
import { Config as Settings } from "../config/config.ts"
import type { Env } from "../config/env.ts"
import type { ConfigError } from "../errors.ts"
import type { ChatModel } from "../llm/types.ts"
import type { RunbookCatalog } from "../runbook/catalog.ts"
import { createRuntime, type Runtime } from "../runtime/runtime.ts"
import { withToolsetProblems } from "../runtime/toolset-problems.ts"
import type { ToolExecutor } from "../tool/executor.ts"

export type { ConfigInit } from "../config/config.ts"
export type { SecuritySettings } from "../config/security.ts"
export { RunbookCatalog, type RunbookEntry } from "../runbook/catalog.ts"
export { applyContainment } from "../runtime/containment.ts"
export { createRuntime, type Runtime } from "../runtime/runtime.ts"
export {
  type ContainmentInfo,
  type ContainmentOptions,
  configureContainment,
  containmentInfo,
} from "../tool/containment/index.ts"

/**
 * The library's Config (CONTRACT §7): the settings object plus the spec's factory methods. They
 * share one runtime per Config (`runtime()`, built on first use), so the executor a caller gets
 * from `toolExecutor()` is the one the engine runs tools with.
 */
export class Config extends Settings {
  #runtime: Runtime | undefined

  /** A config file that fails its schema is reported with its toolsets' problems too. */
  static override explainFileError(error: ConfigError, path: string, env: Env): ConfigError {
    return withToolsetProblems(error, path, env)
  }

  /** The runtime built from this config: executor, runbooks, models, engines, `close()`. */
  runtime(): Runtime {
    this.#runtime ??= createRuntime(this)
    return this.#runtime
  }

  /** The spec's `create_console_toolcalling_llm()`. */
  createConsoleToolCallingLLM(modelName?: string): ToolCallingLLM {
    return this.runtime().engine(modelName)
  }

  /** The chat model for a name (a modelList key), the default one without a name. */
  createModel(name?: string): ChatModel {
    return this.runtime().model(name)
  }

  /** The spec's `get_runbook_catalog()`: undefined when no runbook folder is configured. */
  getRunbookCatalog(): RunbookCatalog | undefined {
    return this.runtime().runbooks
  }

  /** The tool executor over every configured toolset (built once). */
  toolExecutor(): ToolExecutor {
    return this.runtime().executor
  }
}
