import { basename } from "node:path"
import type { TSchema } from "@sinclair/typebox"
import { StructuredToolResult } from "../tool/result.ts"
import { Tool, type ToolInit } from "../tool/tool.ts"
import { type Mock, mockMatches } from "./mock-file.ts"

/** A call no mock answered, kept for the report: it usually means the case lacks a mock. */
export type MockMiss = { tool: string; params: Record<string, unknown> }

/**
 * A tool as the model sees it (name, description, parameters of the real tool), answered from the
 * case's mock files instead of running anything. It goes through the real executor path, so
 * argument validation and result handling are those of a live run.
 */
export class MockTool extends Tool {
  readonly #mocks: Mock[]
  readonly #misses: MockMiss[]
  readonly #shape: Tool | undefined

  constructor(init: ToolInit, mocks: readonly Mock[], misses: MockMiss[], shape?: Tool) {
    super(init)
    this.#mocks = mocks.filter((m) => m.toolName === init.name)
    this.#misses = misses
    this.#shape = shape
  }

  /** A real tool lends its schema (MCP and code tools build theirs beyond `parameters`). */
  static of(tool: Tool, mocks: readonly Mock[], misses: MockMiss[]): MockTool {
    const init: ToolInit = { name: tool.name, description: tool.description, parameters: tool.parameters }
    return new MockTool(init, mocks, misses, tool)
  }

  override inputSchema(): TSchema {
    return this.#shape ? this.#shape.inputSchema() : super.inputSchema()
  }

  override getParameterizedOneLiner(params: Record<string, unknown>): string {
    return this.#shape ? this.#shape.getParameterizedOneLiner(params) : super.getParameterizedOneLiner(params)
  }

  protected async invoke(params: Record<string, unknown>): Promise<StructuredToolResult> {
    const mock = bestMatch(this.#mocks, this.name, params)
    if (!mock) {
      this.#misses.push({ tool: this.name, params })
      return StructuredToolResult.error(missMessage(this.name, params), params)
    }
    return new StructuredToolResult({
      status: mock.status,
      data: mock.data,
      error: mock.error,
      returnCode: mock.returnCode,
      params,
      invocation: `mock ${basename(mock.file)}`,
    })
  }
}

/** The matching mock that names the most parameters: a specific mock wins over a catch-all. */
export function bestMatch(
  mocks: readonly Mock[],
  toolName: string,
  params: Record<string, unknown>,
): Mock | undefined {
  let best: Mock | undefined
  for (const mock of mocks) {
    if (!mockMatches(mock, toolName, params)) continue
    const size = Object.keys(mock.matchParams ?? {}).length
    if (!best || size > Object.keys(best.matchParams ?? {}).length) best = mock
  }
  return best
}

/**
 * What the model reads when no mock answers: the call it made, and nothing about the calls that
 * would have been answered, which would hand it the investigation's path (pod names, namespaces).
 */
function missMessage(tool: string, params: Record<string, unknown>): string {
  return `No mock output for ${tool} with parameters ${JSON.stringify(params)} in this evaluation case: the call returned nothing. Try other parameters or another tool.`
}
