/** Public entry point `dupin/config`. */
import type { ToolCallingLLM } from "../agent/tool-calling-llm.ts"
import { Config as Settings } from "../config/config.ts"
import type { RunbookCatalog } from "../runbook/catalog.ts"
import { createConsoleToolCallingLLM, runbookCatalogFor, toolExecutorFor } from "../runtime/runtime.ts"
import type { ToolExecutor } from "../tool/executor.ts"

export type { ConfigInit } from "../config/config.ts"
export type { SecuritySettings } from "../config/security.ts"
export { RunbookCatalog, type RunbookEntry } from "../runbook/catalog.ts"
export { applyContainment } from "../runtime/containment.ts"
export {
  type ContainmentInfo,
  type ContainmentOptions,
  configureContainment,
  containmentInfo,
} from "../tool/containment/index.ts"

/**
 * The library's Config (CONTRACT §7): the settings object plus the spec's factory methods, which
 * delegate to the runtime module so that config/ itself builds nothing.
 */
export class Config extends Settings {
  /** The spec's `create_console_toolcalling_llm()`. */
  createConsoleToolCallingLLM(modelName?: string): ToolCallingLLM {
    return createConsoleToolCallingLLM(this, modelName)
  }

  /** The spec's `get_runbook_catalog()`: undefined when no runbook folder is configured. */
  getRunbookCatalog(): RunbookCatalog | undefined {
    return runbookCatalogFor(this)
  }

  /** The tool executor over every configured toolset (built once). */
  toolExecutor(): ToolExecutor {
    return toolExecutorFor(this)
  }
}
