import { raceAbort } from "../abort.ts"
import { AbortError, errorMessage } from "../errors.ts"
import { isRecord } from "../is-record.ts"
import type { ToolCall, ToolSchema } from "../llm/types.ts"
import { redactOffLoop } from "../offloop/redact.ts"
import { yieldToLoop } from "../offloop/yield.ts"
import type { RequestQuota } from "./containment/request-quota.ts"
import { duplicateKey } from "./duplicate-keys.ts"
import { StructuredToolResult } from "./result.ts"
import type { Tool, ToolContext, ToolLimits } from "./tool.ts"
import type { Toolset } from "./toolset.ts"
import { checkPending, offeredToModel } from "./toolset-status.ts"

export type ExecutorOptions = {
  limits: ToolLimits
  /** Explicit environment for tool processes. */
  env: Record<string, string>
  /** Seconds a prerequisite check may take. */
  prerequisiteTimeout?: number
}

/** A tool call resolved against the executor: the tool (if any), its validated params, or why not. */
export type PreparedCall = {
  call: ToolCall
  tool: Tool | undefined
  params: Record<string, unknown>
  /** Set when the call cannot run (unknown tool, bad JSON, schema failure). */
  error?: string
  /** Set when the call needs a human's approval before it runs. */
  approvalReason?: string
}

/**
 * The tools available to one engine. Prerequisites are checked lazily (first `startChecks` or
 * `ensureReady`), concurrently and each with a timeout, so a hanging check never delays startup.
 * A run does not wait for them: a toolset still being checked is offered, and a call to its tools
 * waits for its check (`run`).
 */
export class ToolExecutor {
  readonly toolsets: readonly Toolset[]
  readonly options: ExecutorOptions
  #schemas: ToolSchema[] | undefined
  #byName: Record<string, Tool> | undefined
  #listed: Record<string, Tool> | undefined
  /** The toolsets' revisions the caches were built from (`Toolset.replaceTools`). */
  #revision = 0
  #toolSchemas = new WeakMap<Tool, ToolSchema>()
  /** One check round: identical prerequisite commands within it run once. */
  #round = new AbortController()

  /**
   * Shared by every run of an engine, so it holds no run's state: a run's own tools
   * (`read_tool_output`, `search_tools`) live in that run's `RunTools` (agent/run-tools.ts).
   */
  constructor(toolsets: readonly Toolset[], options: ExecutorOptions) {
    this.toolsets = toolsets
    this.options = options
  }

  /**
   * Checks every toolset's prerequisites once (later calls share the result). The checks run under
   * the executor's own signal: a caller that gives up (a client disconnecting during the first
   * request) stops waiting, but must not leave toolsets marked failed for the process's lifetime.
   */
  async ensureReady(signal?: AbortSignal): Promise<void> {
    await raceAbort(Promise.all(this.toolsets.map((t) => this.#check(t))), signal)
  }

  /**
   * Starts the check round (as `ensureReady`) and returns once a run can be offered its tools:
   * checks that need no process or network (config, `env`, static and synchronous ones) have
   * settled, so the system prompt and the first request leave those failures out, and so have
   * those of toolsets that list no tools before their check (an MCP server lists its tools on
   * connect: a request cannot offer tools nobody knows yet). Other checks go on, pending.
   */
  async startChecks(signal?: AbortSignal): Promise<void> {
    const round = this.ensureReady()
    round.catch(() => undefined)
    const toolsUnknown = this.toolsets.filter((t) => checkPending(t) && t.tools.length === 0)
    const settled = Promise.all([...toolsUnknown.map((t) => this.#check(t)), nextTurn()])
    await raceAbort(Promise.race([round, settled]), signal)
  }

  /** Re-runs every prerequisite check (`dupin toolsets check`). */
  async recheck(): Promise<void> {
    for (const t of this.toolsets) t.resetCheck()
    this.#round = new AbortController()
    const checks = this.ensureReady()
    this.#clearCaches()
    await checks
    // A read while the checks ran saw the previous round's statuses (their checkedAt is still
    // set) and may have cached them: the maps are rebuilt from the new outcome.
    this.#clearCaches()
  }

  #clearCaches(): void {
    this.#schemas = undefined
    this.#byName = undefined
    this.#listed = undefined
  }

  /**
   * Tools of enabled toolsets, by name (the library's `toolExecutor.toolsByName`): listed from the
   * start, before any prerequisite ran, and gone once their toolset fails its checks. The first
   * toolset to define a name wins. What the model may call is narrower: `offeredTools`.
   */
  get toolsByName(): Record<string, Tool> {
    this.#dropStaleCaches()
    if (this.#listed) return this.#listed
    const listed = toolsOf(this.toolsets, (t) => t.enabled && t.status !== "failed")
    if (this.toolsets.every((t) => t.checkedAt)) this.#listed = listed
    return listed
  }

  /**
   * Tools the model is offered and may call: those of toolsets that passed their checks or whose
   * check has not settled yet (a call then waits for it).
   */
  get offeredTools(): Record<string, Tool> {
    this.#dropStaleCaches()
    if (this.#byName) return this.#byName
    const byName = toolsOf(this.toolsets, offeredToModel)
    // Only cache once every toolset has been checked; before that the set is incomplete.
    if (this.toolsets.every((t) => t.checkedAt)) this.#byName = byName
    return byName
  }

  /** Tool schemas for the provider. Cached: the same array every step keeps token counts cached too. */
  schemas(): ToolSchema[] {
    this.#dropStaleCaches()
    if (this.#schemas) return this.#schemas
    const schemas = Object.values(this.offeredTools).map((t) => this.#schemaOf(t))
    if (this.toolsets.every((t) => t.checkedAt)) this.#schemas = schemas
    return schemas
  }

  /**
   * One schema object per tool: while checks are pending the array is rebuilt each step, and the
   * token counter finds each definition counted by its object.
   */
  #schemaOf(tool: Tool): ToolSchema {
    let schema = this.#toolSchemas.get(tool)
    if (!schema) {
      schema = tool.toSchema()
      this.#toolSchemas.set(tool, schema)
    }
    return schema
  }

  /** Tools that arrive or change after the checks (an MCP server's tool list) drop the caches. */
  #dropStaleCaches(): void {
    let revision = 0
    for (const toolset of this.toolsets) revision += toolset.revision
    if (revision === this.#revision) return
    this.#revision = revision
    this.#toolSchemas = new WeakMap()
    this.#schemas = undefined
    this.#byName = undefined
    this.#listed = undefined
  }

  /** Parses and validates a model's tool call. Never throws. */
  prepare(call: ToolCall): PreparedCall {
    const tool = this.offeredTools[call.function.name]
    if (!tool) {
      const unavailable = this.#failedToolsetOf(call.function.name)
      if (unavailable)
        return { call, tool, params: {}, error: unavailableText(call.function.name, unavailable) }
      const known = Object.keys(this.offeredTools).sort().join(", ") || "none"
      return {
        call,
        tool,
        params: {},
        error: `Unknown tool "${call.function.name}". Available tools: ${known}.`,
      }
    }
    let raw: unknown
    try {
      raw = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments)
    } catch (error) {
      return {
        call,
        tool,
        params: {},
        error: `Arguments for ${tool.name} are not valid JSON: ${errorMessage(error)}`,
      }
    }
    // Refused, never resolved: the text an approver or a log shows must be the call that runs.
    const repeated = duplicateKey(call.function.arguments)
    if (repeated !== undefined) {
      return {
        call,
        tool,
        params: {},
        error: `Arguments for ${tool.name} name the key ${JSON.stringify(repeated).slice(0, 100)} more than once in one object; nothing was run. Send each key once.`,
      }
    }
    const checked = tool.validate(raw)
    if (!checked.ok) return { call, tool, params: isRecord(raw) ? raw : {}, error: checked.error }
    let approval: boolean | string
    try {
      approval = tool.requiresApproval(checked.params)
    } catch (error) {
      return {
        call,
        tool,
        params: checked.params,
        error: `${tool.name} could not check its arguments: ${errorMessage(error)}`,
      }
    }
    const approvalReason = approval === true ? `${tool.name} needs approval.` : approval || undefined
    return { call, tool, params: checked.params, ...(approvalReason ? { approvalReason } : {}) }
  }

  /**
   * Runs a prepared call. Tool failures become results; only an abort rejects. `outputMaxBytes`
   * lowers the read cap (what the request has left of its output budget).
   */
  async run(
    prepared: PreparedCall,
    signal: AbortSignal,
    approved = false,
    outputMaxBytes?: number,
    quota?: RequestQuota,
  ): Promise<StructuredToolResult> {
    if (prepared.error || !prepared.tool) {
      return StructuredToolResult.error(prepared.error ?? "Unknown tool.", prepared.params)
    }
    const limits = this.options.limits
    const context: ToolContext = {
      signal,
      toolCallId: prepared.call.id,
      limits:
        outputMaxBytes === undefined || outputMaxBytes >= limits.outputMaxBytes
          ? limits
          : { ...limits, outputMaxBytes },
      env: this.options.env,
      approved,
      ...(quota ? { quota } : {}),
    }
    if (signal.aborted) throw new AbortError()
    const toolset = prepared.tool.toolset
    if (toolset && checkPending(toolset)) {
      await raceAbort(this.#check(toolset), signal)
      if (toolset.status !== "enabled")
        return StructuredToolResult.error(unavailableText(prepared.tool.name, toolset), prepared.params)
    }
    return await scrub(await prepared.tool.run(prepared.params, context), signal)
  }

  /** One toolset's check in the current round (shared with `ensureReady`'s). */
  #check(toolset: Toolset): Promise<void> {
    return toolset.checkPrerequisites({
      env: this.options.env,
      signal: this.#round.signal,
      timeoutSeconds: this.options.prerequisiteTimeout ?? 10,
    })
  }

  /** The toolset that failed its checks and defines `name`, when no offered toolset does. */
  #failedToolsetOf(name: string): Toolset | undefined {
    return this.toolsets.find((t) => t.status === "failed" && t.tools.some((tool) => tool.name === name))
  }

  /**
   * The call's description for events, `tool_calls` and progress lines: the tool's one-liner, cut
   * to its first line (with an ellipsis) if a tool returns more, so it is never a multi-line string.
   */
  describe(prepared: PreparedCall): string {
    const text = prepared.tool
      ? prepared.tool.getParameterizedOneLiner(prepared.params)
      : prepared.call.function.name
    const lines = text.trim().split(/\r?\n|\r/)
    return lines.length > 1 ? `${lines[0]?.trim() ?? ""} …` : text
  }
}

/**
 * Redacts secrets from a result once, here, so neither the model nor an API client (events, tool
 * call lists) ever receives them, whatever the tool. Large outputs are redacted off the event loop.
 */
async function scrub(result: StructuredToolResult, signal: AbortSignal): Promise<StructuredToolResult> {
  // Results of parallel calls often finish in one tick and would run on as one long chain of
  // microtasks: a turn for the event loop between them.
  await yieldToLoop()
  if (result.data !== null && result.data !== undefined)
    result.data = await redactOffLoop(result.dataText(), signal)
  if (result.error) result.error = await redactOffLoop(result.error, signal)
  return result
}

/** After the microtasks queued now: checks that wait on no I/O have settled by then. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** The result of a call to a tool whose toolset failed its prerequisite check: nothing ran. */
function unavailableText(tool: string, toolset: Toolset): string {
  const why = toolset.error ?? "its prerequisite check failed"
  return `${tool} was not run: toolset ${toolset.name} is unavailable (${why}).`
}

/** Tools of the toolsets `keep` selects, by name; the first toolset to define a name wins. */
function toolsOf(toolsets: readonly Toolset[], keep: (toolset: Toolset) => boolean): Record<string, Tool> {
  const byName: Record<string, Tool> = {}
  for (const toolset of toolsets) {
    if (!keep(toolset)) continue
    for (const tool of toolset.tools) byName[tool.name] ??= tool
  }
  return byName
}
