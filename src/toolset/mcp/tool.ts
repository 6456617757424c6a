/**
 * One tool of an MCP server. The model sees the server's input schema whole; arguments are
 * validated against it before the call; the call goes over the server's kept connection.
 */
import type { Validator } from "@cfworker/json-schema"
import type { TSchema } from "@sinclair/typebox"
import { AbortError, errorMessage } from "../../errors.ts"
import type { StructuredToolResult } from "../../tool/result.ts"
import { Tool, type ToolContext } from "../../tool/tool.ts"
import type { McpConnection } from "./connection.ts"
import { argumentProblems, validatorFor } from "./input-schema.ts"
import { toolResult } from "./result.ts"

export type McpToolInit = {
  /** The name the model sees (the server's, or `<server>__<name>` when taken). */
  name: string
  /** The name the server knows the tool by. */
  remoteName: string
  description: string
  inputSchema: Record<string, unknown>
  connection: McpConnection
  /** Seconds per call; capped by `limits.tool_timeout_max`. */
  timeout: number | undefined
  requiresApproval: boolean
}

export class McpTool extends Tool {
  readonly remoteName: string
  readonly #schema: Record<string, unknown>
  readonly #connection: McpConnection
  readonly #approval: boolean
  #validator: Validator | undefined

  constructor(init: McpToolInit) {
    super({ name: init.name, description: init.description, timeout: init.timeout })
    this.remoteName = init.remoteName
    this.#schema = init.inputSchema
    this.#connection = init.connection
    this.#approval = init.requiresApproval
  }

  override inputSchema(): TSchema {
    return this.#schema as TSchema
  }

  override validate(
    raw: unknown,
  ): { ok: true; params: Record<string, unknown> } | { ok: false; error: string } {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw))
      return { ok: false, error: "Tool arguments must be a JSON object." }
    this.#validator ??= validatorFor(this.#schema)
    const problems = argumentProblems(this.#validator, raw)
    if (problems.length === 0) return { ok: true, params: raw as Record<string, unknown> }
    return { ok: false, error: `Invalid arguments for ${this.name}: ${problems.join("; ")}` }
  }

  override requiresApproval(): boolean | string {
    return this.#approval
      ? `${this.name} is a tool of MCP server ${this.#connection.spec.name}, which needs approval.`
      : false
  }

  protected override async invoke(
    params: Record<string, unknown>,
    context: ToolContext,
  ): Promise<StructuredToolResult> {
    const server = this.#connection.spec.name
    const invocation = `mcp ${server} ${this.remoteName}`
    try {
      const result = await this.#connection.callTool(this.remoteName, params, {
        signal: context.signal,
        timeoutMs: this.effectiveTimeout(context.limits) * 1000,
      })
      return toolResult(result, context.limits.outputMaxBytes, invocation, (text) =>
        this.#connection.redactResult(text),
      )
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason ?? new AbortError()
      throw new Error(`MCP server ${server}: ${this.#connection.redact(errorMessage(error))}`)
    }
  }
}
