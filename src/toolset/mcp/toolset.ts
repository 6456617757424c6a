/**
 * An MCP server as a toolset. Its prerequisite is connecting and listing the tools (lazy: the
 * first check of the executor); an unreachable or broken server marks the toolset failed with the
 * reason. `deferFirst`: when the tool definitions pass their budget, these tools are the first
 * offered through tool search instead of up front.
 */
import type { Tool as McpToolDefinition } from "@modelcontextprotocol/client"
import type { Env } from "../../config/env.ts"
import { errorMessage } from "../../errors.ts"
import { log } from "../../log.ts"
import type { Prerequisite, PrerequisiteContext, PrerequisiteOutcome } from "../../tool/prerequisite.ts"
import type { Tool } from "../../tool/tool.ts"
import { Toolset } from "../../tool/toolset.ts"
import { McpConnection } from "./connection.ts"
import { schemaProblem } from "./input-schema.ts"
import { toolDescription, toolName } from "./names.ts"
import { type McpServerSpec, transportName } from "./schema.ts"
import { McpTool } from "./tool.ts"

/** Tools of one server dupin offers; a server listing more has the rest skipped (bounded memory, window). */
export const MAX_TOOLS = 1000

export type McpToolsetInit = {
  spec: McpServerSpec
  enabled: boolean
  env: Env
  /** The toolsets listed before this one: their tool names are taken. */
  earlier: () => readonly Toolset[]
  /** Every other MCP toolset: the names their tools have now are taken too. */
  others: () => readonly McpToolset[]
}

export class McpToolset extends Toolset {
  readonly connection: McpConnection
  readonly spec: McpServerSpec
  /** Settles when the first connect attempt has (later servers wait for it to pick names). */
  settled: Promise<void> = Promise.resolve()
  readonly #earlier: () => readonly Toolset[]
  readonly #others: () => readonly McpToolset[]
  #retrying = false
  /** See `checkPrerequisites`. */
  static retryFailedAfterMs = 30_000

  constructor(init: McpToolsetInit) {
    super({
      name: init.spec.name,
      description: init.spec.description,
      enabled: init.enabled,
      tags: ["mcp", ...init.spec.tags],
      ...(init.spec.docsUrl ? { docsUrl: init.spec.docsUrl } : {}),
      ...(init.spec.llmInstructions ? { llmInstructions: init.spec.llmInstructions } : {}),
      deferFirst: true,
    })
    this.spec = init.spec
    this.#earlier = init.earlier
    this.#others = init.others
    this.connection = new McpConnection(init.spec, init.env, {
      onToolsChanged: (tools) => {
        this.replaceTools(this.#tools(tools))
        log.info("mcp server: tool list changed", { server: this.name, tools: this.tools.length })
      },
    })
    this.prerequisites = [new ConnectPrerequisite(this)]
  }

  /**
   * A server that failed is tried again, in the background, by the first check at least
   * `retryFailedAfterMs` after the last one (every run checks): a server that was down when
   * `serve` started joins once it is up, and no request waits for it meanwhile.
   */
  override checkPrerequisites(context: Omit<PrerequisiteContext, "config">): Promise<void> {
    // The failed result stands while the retry runs.
    if (this.#retrying) return Promise.resolve()
    const current = super.checkPrerequisites(context)
    const stale = this.checkedAt && Date.now() - this.checkedAt.getTime() >= McpToolset.retryFailedAfterMs
    if (this.status !== "failed" || !stale || this.#retrying) return current
    this.#retrying = true
    this.resetCheck()
    void super
      .checkPrerequisites(context)
      .catch(() => undefined)
      .finally(() => {
        this.#retrying = false
        // The status moved after the tools did: executors rebuild their maps once more.
        this.revision += 1
        if (this.status === "enabled")
          log.info("mcp server: connected after an earlier failure", { server: this.name })
      })
    return current
  }

  /** How dupin reaches the server: stdio, streamable-http or sse (the one in use once connected). */
  get transport(): string {
    return this.status === "enabled" ? this.connection.transport : transportName(this.spec.transport)
  }

  /** What `dupin toolsets` and `/api/info` show of the server: never its URL, headers or env. */
  override get statusFields(): { transport: string; protocol_version: string | null } {
    return { transport: this.transport, protocol_version: this.connection.protocolVersion ?? null }
  }

  override close(): Promise<void> {
    return this.connection.close()
  }

  /** Connects and lists the tools; throws why not. */
  async connect(context: PrerequisiteContext): Promise<number> {
    let done: () => void = () => {}
    this.settled = new Promise<void>((resolve) => {
      done = resolve
    })
    try {
      const listed = this.connection.listTools(context.signal)
      // It may fail while the earlier servers are awaited: handled below, not unhandled meanwhile.
      listed.catch(() => undefined)
      // Names already taken are known once the servers listed before this one have connected.
      // A server that hangs does not hold the others back past half the prerequisite timeout: the
      // names it has not listed yet are not taken, and it takes prefixed names if it lists later.
      const before = this.#earlier().filter((t): t is McpToolset => t instanceof McpToolset)
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        Promise.all(before.map((t) => t.settled)),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, (context.timeoutSeconds * 1000) / 2)
        }),
      ])
      clearTimeout(timer)
      this.replaceTools(this.#tools(await listed))
      return this.tools.length
    } finally {
      done()
    }
  }

  /** The server's tools as dupin tools: allowed ones, valid schemas, free names. */
  #tools(definitions: McpToolDefinition[]): Tool[] {
    const allowed = this.spec.allowedTools
    const approval = this.spec.requiresApproval
    // Every tool of an earlier toolset switched on counts, checked or not: a name must not depend
    // on whether kubectl happens to be installed.
    const taken = new Set(
      [...this.#earlier(), ...this.#others()].flatMap((t) => (t.enabled ? t.tools : [])).map((t) => t.name),
    )
    const tools: Tool[] = []
    let over = 0
    for (const definition of definitions) {
      if (allowed && !allowed.includes(definition.name)) continue
      if (tools.length >= MAX_TOOLS) {
        over += 1
        continue
      }
      const problem = schemaProblem(definition.inputSchema)
      if (problem) {
        log.warn("mcp server: tool skipped", {
          server: this.name,
          tool: definition.name.slice(0, 200),
          reason: problem,
        })
        continue
      }
      const named = toolName(definition.name, this.name, taken)
      if ("skip" in named) {
        log.warn("mcp server: tool skipped", {
          server: this.name,
          tool: definition.name.slice(0, 200),
          reason: named.skip,
        })
        continue
      }
      const name = named.name
      taken.add(name)
      tools.push(
        new McpTool({
          name,
          remoteName: definition.name,
          description: toolDescription(definition.description ?? definition.title ?? definition.name),
          inputSchema: definition.inputSchema as Record<string, unknown>,
          connection: this.connection,
          timeout: this.spec.timeout,
          requiresApproval:
            approval === true || (Array.isArray(approval) && approval.includes(definition.name)),
        }),
      )
    }
    if (over > 0)
      log.warn("mcp server: too many tools, the rest skipped", {
        server: this.name,
        kept: MAX_TOOLS,
        skipped: over,
      })
    for (const name of allowed ?? []) {
      if (!definitions.some((d) => d.name === name))
        log.warn("mcp server: allowed_tools names a tool the server does not offer", {
          server: this.name,
          tool: name,
        })
    }
    return tools
  }
}

class ConnectPrerequisite implements Prerequisite {
  constructor(readonly toolset: McpToolset) {}

  async check(context: PrerequisiteContext): Promise<PrerequisiteOutcome> {
    try {
      const count = await this.toolset.connect(context)
      return [true, `${count} tools`]
    } catch (error) {
      return [
        false,
        `MCP server ${this.toolset.name} (${transportName(this.toolset.spec.transport)}): ${this.toolset.connection.redact(errorMessage(error))}`,
      ]
    }
  }
}
