import type { TSchema } from "@sinclair/typebox"
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler"
import { raceAbort } from "../abort.ts"
import { AbortError, errorMessage } from "../errors.ts"
import "./formats.ts" // registers the string formats parameters and config schemas may name
import type { ToolSchema } from "../llm/types.ts"
import type { RequestQuota } from "./containment/request-quota.ts"
import { parametersSchema, type ToolParameter } from "./parameter.ts"
import { StructuredToolResult } from "./result.ts"
import type { Toolset } from "./toolset.ts"

export type ToolLimits = {
  /** Seconds, when a tool sets none. */
  timeoutDefault: number
  /** Seconds; no tool may ask for more. */
  timeoutMax: number
  /** Bytes of output kept per tool run; the rest is drained and counted. */
  outputMaxBytes: number
  // The three below are optional so limits built before they existed still type-check; the
  // engine falls back to DEFAULT_TOOL_LIMITS for a missing one (engineLimits).
  /** Tool calls of one step that run at once; the rest queue. */
  maxParallelCalls?: number
  /** Bytes of tool output one request keeps, all calls together; past it outputs are cut. */
  requestOutputMaxBytes?: number
  /** Bytes of each result's `data` and `error` echoed to API clients (events, `tool_calls`). */
  echoMaxBytes?: number
}

export const DEFAULT_TOOL_LIMITS: Required<ToolLimits> = {
  timeoutDefault: 60,
  timeoutMax: 600,
  outputMaxBytes: 10_000_000,
  maxParallelCalls: 8,
  requestOutputMaxBytes: 50_000_000,
  echoMaxBytes: 64_000,
}

/** `limits` with every optional bound filled in from the defaults. */
export function engineLimits(limits: ToolLimits): Required<ToolLimits> {
  return { ...DEFAULT_TOOL_LIMITS, ...limits } as Required<ToolLimits>
}

/** What a tool run may use. Everything comes from the caller: tools never read process.env. */
export type ToolContext = {
  signal: AbortSignal
  toolCallId: string
  limits: ToolLimits
  /** The explicit environment for subprocesses (no provider keys). */
  env: Record<string, string>
  /** True when a human approved this exact call. */
  approved?: boolean
  /** The request's share of tool-process slots and memory (see `spawnScope`). */
  quota?: RequestQuota
}

export type ToolInit = {
  name: string
  description: string
  parameters?: Record<string, ToolParameter>
  /** Seconds; capped by `limits.timeoutMax`. */
  timeout?: number
}

/**
 * A tool the model can call. Subclasses implement `invoke`; `run` is the single place that
 * validates arguments, enforces abort (and the timeout, see `timeoutOwner`), and turns any failure into a result the
 * model sees (opencode's `Tool.define`, Vercel's `tool()`).
 */
export abstract class Tool {
  readonly name: string
  readonly description: string
  readonly parameters: Record<string, ToolParameter>
  readonly timeout: number | undefined
  /** The toolset this tool belongs to; set by the subclass after `super()` or by the Toolset. */
  protected _toolset: Toolset | undefined
  #check: TypeCheck<TSchema> | undefined

  constructor(init: ToolInit) {
    this.name = init.name
    this.description = init.description
    this.parameters = init.parameters ?? {}
    this.timeout = init.timeout
  }

  get toolset(): Toolset | undefined {
    return this._toolset
  }

  set toolset(toolset: Toolset | undefined) {
    this._toolset = toolset
  }

  protected abstract invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult>

  /** A one-line, human-readable form of a call, shown in events and approval prompts. */
  getParameterizedOneLiner(params: Record<string, unknown>): string {
    return `${this.name}(${paramsInOneLine(params)})`
  }

  /**
   * Whether this call needs a human's approval before it runs. Return a string to say why; the
   * reason is shown to the approver. Override in tools that can change things.
   */
  requiresApproval(_params: Record<string, unknown>): boolean | string {
    return false
  }

  inputSchema(): TSchema {
    return parametersSchema(this.parameters)
  }

  toSchema(): ToolSchema {
    return {
      type: "function",
      function: {
        name: this.name,
        description: this.description,
        parameters: this.inputSchema() as Record<string, unknown>,
      },
    }
  }

  /** Validates, applies defaults and drops nulls of optional parameters. Returns an error text or the params. */
  validate(raw: unknown): { ok: true; params: Record<string, unknown> } | { ok: false; error: string } {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      return { ok: false, error: "Tool arguments must be a JSON object." }
    }
    const params: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(raw)) {
      if (value === null && this.parameters[key] && !this.parameters[key].required) continue
      params[key] = value
    }
    for (const [key, param] of Object.entries(this.parameters)) {
      if (params[key] === undefined && param.default !== undefined) params[key] = param.default
    }
    this.#check ??= TypeCompiler.Compile(this.inputSchema())
    if (this.#check.Check(params)) return { ok: true, params }
    const problems = [...this.#check.Errors(params)].slice(0, 5).map((e) => `${e.path || "/"}: ${e.message}`)
    return {
      ok: false,
      error: `Invalid arguments for ${this.name}: ${problems.join("; ")}. ${this.#signature()}`,
    }
  }

  /**
   * The parameters in one line, for an invalid-arguments error: a model that found the tool through
   * `search_tools`, or lost its definition to compaction, can correct its call from the error alone.
   */
  #signature(): string {
    const entries = Object.entries(this.parameters)
    if (entries.length === 0) return "It takes no parameters."
    const shown = entries.slice(0, 12).map(([name, p]) => {
      const choices = p.enum ? `, one of ${p.enum.slice(0, 8).join("|")}` : ""
      return `${name} (${p.type}, ${p.required ? "required" : "optional"}${choices})`
    })
    const more = entries.length > shown.length ? `, and ${entries.length - shown.length} more` : ""
    return `Parameters: ${shown.join(", ")}${more}.`
  }

  /** Seconds this tool may run, within the configured limits. */
  effectiveTimeout(limits: ToolLimits): number {
    return Math.min(this.timeout ?? limits.timeoutDefault, limits.timeoutMax)
  }

  /**
   * Who enforces this tool's time limit; exactly one owner, or the faster one wins and loses
   * what the other had. `run` (the default, for in-process tools such as HTTP fetches and
   * Prometheus queries): `run` races `invoke` against its timer. `process` (tools that spawn):
   * `invoke` hands `effectiveTimeout` to `runProcess`/`runPipeline`, whose timer kills the process
   * group and keeps what the command printed before it hung; `run` adds no timer of its own.
   */
  protected readonly timeoutOwner: "run" | "process" = "run"

  /**
   * Runs the tool on already-validated params. Never throws for tool failures; an abort of
   * `context.signal` rejects with AbortError so the loop can stop.
   */
  async run(params: Record<string, unknown>, context: ToolContext): Promise<StructuredToolResult> {
    const seconds = this.effectiveTimeout(context.limits)
    const timeout = this.timeoutOwner === "run" ? AbortSignal.timeout(seconds * 1000) : undefined
    const signal = timeout ? AbortSignal.any([context.signal, timeout]) : context.signal
    try {
      // The race ends in-process tools that ignore the signal; subprocess tools kill their own group.
      const result = await raceAbort(this.invoke(params, { ...context, signal }), signal, (s) => s.reason)
      result.params = params
      return result
    } catch (error) {
      if (context.signal.aborted) throw new AbortError()
      if (timeout?.aborted)
        return StructuredToolResult.error(`${this.name} timed out after ${seconds} s.`, params)
      return StructuredToolResult.error(`${this.name} failed: ${errorMessage(error)}`, params)
    }
  }
}

/**
 * A call's values as `key=value, ...` on one line: strings as they are unless they hold a line
 * break (then JSON-quoted, so `\n` shows as such), other values as JSON. Empty values are left out.
 */
export function paramsInOneLine(params: Record<string, unknown>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}=${typeof v === "string" && !/[\r\n]/.test(v) ? v : JSON.stringify(v)}`)
    .join(", ")
}
