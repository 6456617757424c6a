import type { TSchema } from "@sinclair/typebox"
import { Value } from "@sinclair/typebox/value"
import { errorMessage } from "../errors.ts"
import { unknownFormatMessage } from "./formats.ts"
import type { Prerequisite, PrerequisiteContext } from "./prerequisite.ts"
import type { Tool } from "./tool.ts"

export enum ToolsetTag {
  CORE = "core",
  CLUSTER = "cluster",
  CLI = "cli",
}

export type ToolsetStatus = "enabled" | "disabled" | "failed"

export type ToolsetInit = {
  name: string
  description?: string
  enabled?: boolean
  prerequisites?: Prerequisite[]
  tools?: Tool[]
  tags?: Array<ToolsetTag | string>
  /** TypeBox schema of `config` (the spec's Pydantic config class). */
  configClasses?: TSchema[]
  config?: Record<string, unknown>
  /** Text added to the system prompt while the toolset is enabled. */
  llmInstructions?: string
  docsUrl?: string
  /**
   * When the enabled tools' definitions pass the window's budget, tools of toolsets marked here
   * are the first offered through the tool search tool instead of up front (MCP servers).
   */
  deferFirst?: boolean
}

/**
 * A named group of tools with prerequisites. A toolset that is enabled in config still has to pass
 * its prerequisites; until `checkPrerequisites` runs its status is `disabled` with no error.
 */
export class Toolset {
  readonly name: string
  description: string
  enabled: boolean
  prerequisites: Prerequisite[]
  readonly tools: Tool[]
  tags: string[]
  configClasses: TSchema[]
  config: Record<string, unknown>
  llmInstructions: string | undefined
  docsUrl: string | undefined
  /** See `ToolsetInit.deferFirst`. */
  deferFirst: boolean
  status: ToolsetStatus = "disabled"
  error: string | undefined
  /** Bumped by `replaceTools`; executors rebuild their tool maps when it moves. */
  revision = 0
  /** When the prerequisites were last checked. */
  checkedAt: Date | undefined
  #checking: Promise<void> | undefined

  constructor(init: ToolsetInit) {
    this.name = init.name
    this.description = init.description ?? ""
    this.enabled = init.enabled ?? true
    this.prerequisites = init.prerequisites ?? []
    this.tools = init.tools ?? []
    this.tags = init.tags ?? [ToolsetTag.CORE]
    this.configClasses = init.configClasses ?? []
    this.config = init.config ?? {}
    this.llmInstructions = init.llmInstructions
    this.docsUrl = init.docsUrl
    this.deferFirst = init.deferFirst ?? false
    for (const tool of this.tools) tool.toolset = this
  }

  /**
   * What status listings (`dupin toolsets`, `/api/info`, `/tools`) show besides the common fields;
   * a toolset kind with more to say (an MCP server's transport) overrides it. Never secrets.
   */
  get statusFields(): Record<string, string | null> {
    return {}
  }

  /** Releases what the toolset holds open (an MCP server's process or session). */
  async close(): Promise<void> {}

  /**
   * Replaces the tools after the toolset was built (an MCP server's tool list arrives on connect
   * and changes on `notifications/tools/list_changed`); executors see the new list.
   */
  replaceTools(tools: Tool[]): void {
    this.tools.splice(0, this.tools.length, ...tools)
    for (const tool of tools) tool.toolset = this
    this.revision += 1
  }

  /** Checks config and prerequisites once; later calls share the first result. */
  checkPrerequisites(context: Omit<PrerequisiteContext, "config">): Promise<void> {
    this.#checking ??= this.#check(context)
    return this.#checking
  }

  /** Forgets the last check so the next `checkPrerequisites` runs again (`dupin toolsets check`). */
  resetCheck(): void {
    this.#checking = undefined
  }

  async #check(context: Omit<PrerequisiteContext, "config">): Promise<void> {
    if (!this.enabled) {
      this.#setStatus("disabled", undefined)
      return
    }
    for (const schema of this.configClasses) {
      // assembleToolsets refuses these at load; a toolset built around it still says which format.
      const unknown = unknownFormatMessage(`toolset ${this.name}: config schema`, schema)
      if (unknown) return this.#setStatus("failed", unknown)
      // Checked once per round: compiling the schema (~2 ms each, on the start's critical path)
      // costs more than interpreting it once.
      if (!Value.Check(schema, this.config)) {
        const first = Value.Errors(schema, this.config).First()
        this.#setStatus(
          "failed",
          `Invalid config for toolset ${this.name}: ${first?.path || "/"}: ${first?.message}`,
        )
        return
      }
    }
    const outcomes = await Promise.all(
      this.prerequisites.map(async (p) => {
        try {
          return await withTimeout(p.check({ ...context, config: this.config }), context.timeoutSeconds)
        } catch (error) {
          return [false, errorMessage(error)] as const
        }
      }),
    )
    const failed = outcomes.find(([ok]) => !ok)
    this.#setStatus(
      failed ? "failed" : "enabled",
      failed ? failed[1] || "Prerequisite check failed." : undefined,
    )
  }

  #setStatus(status: ToolsetStatus, error: string | undefined): void {
    this.status = status
    this.error = error
    this.checkedAt = new Date()
  }
}

async function withTimeout<T>(promise: Promise<T>, seconds: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Prerequisite check timed out after ${seconds} s.`)),
      seconds * 1000,
    )
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
