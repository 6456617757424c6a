import { ToolParameter, type ToolParameterType } from "../tool/parameter.ts"
import { Toolset } from "../tool/toolset.ts"
import { assembleToolsets } from "../toolset/assemble.ts"
import { builtinToolsetDefinitions } from "../toolset/builtin/index.ts"
import { CODE_TOOLSETS } from "../toolset/registry.ts"
import { PLANNING_TOOLSET } from "../toolset/todo.ts"
import type { EvalCase } from "./case-file.ts"
import type { Mock } from "./mock-file.ts"
import { type MockMiss, MockTool } from "./mock-tool.ts"

/**
 * Toolsets that never take part in an eval: bash runs real commands, whatever a mock says, and
 * runbooks come from the operator's config, which a case does not carry.
 */
const LEFT_OUT = new Set(["bash", "runbook"])

/**
 * The toolsets one run of `evalCase` offers: the bundled toolsets the case leaves on (as a default
 * config would), each tool answered from the case's mocks; the planning tool runs for real, as it
 * only echoes the plan. Tools that only exist in the case's mocks (HolmesGPT toolsets dupin does
 * not ship) are offered too, their parameters taken from the mocks, so HolmesGPT's fixtures
 * measure the investigation rather than a tool-name mismatch. Fresh instances per run: toolset
 * status is per instance.
 */
export function caseToolsets(evalCase: EvalCase, misses: MockMiss[]): Toolset[] {
  const known = new Set([
    ...builtinToolsetDefinitions().map((d) => d.name),
    ...CODE_TOOLSETS.map((f) => f.name),
  ])
  const config = Object.fromEntries(
    Object.entries(evalCase.toolsets)
      .filter(([name]) => known.has(name) && !LEFT_OUT.has(name))
      .map(([name, enabled]) => [name, { enabled }]),
  )
  const assembled = assembleToolsets({
    config,
    customFiles: [],
    additional: [],
    mcpServers: {},
    flags: {},
    context: { env: {}, runbooks: undefined, protectedPaths: [] },
  })
  const toolsets = assembled
    .filter((t) => t.enabled && !LEFT_OUT.has(t.name))
    .map((t) =>
      t.name === PLANNING_TOOLSET
        ? t
        : new Toolset({
            name: t.name,
            description: t.description,
            tags: t.tags,
            ...(t.llmInstructions ? { llmInstructions: t.llmInstructions } : {}),
            tools: t.tools.map((tool) => MockTool.of(tool, evalCase.mocks, misses)),
          }),
    )
  const offered = new Set(toolsets.flatMap((t) => t.tools.map((tool) => tool.name)))
  const extra = evalCase.mocks.filter(
    (m) => !offered.has(m.toolName) && evalCase.toolsets[m.toolsetName ?? ""] !== false,
  )
  return [...toolsets, ...mockOnlyToolsets(extra, misses)]
}

/** Toolsets made from mocks alone, grouped by the toolset their header names. */
function mockOnlyToolsets(mocks: readonly Mock[], misses: MockMiss[]): Toolset[] {
  const byToolset = Map.groupBy(mocks, (m) => m.toolsetName || "mocked")
  return [...byToolset].map(([name, group]) => {
    const byTool = Map.groupBy(group, (m) => m.toolName)
    const tools = [...byTool].map(
      ([tool, toolMocks]) =>
        new MockTool(
          { name: tool, description: `${tool} (toolset ${name})`, parameters: parametersFrom(toolMocks) },
          toolMocks,
          misses,
        ),
    )
    return new Toolset({ name, description: `${name} (from the case's mocks)`, tools })
  })
}

/** Optional parameters named by the mocks' match_params, typed from the recorded values. */
function parametersFrom(mocks: readonly Mock[]): Record<string, ToolParameter> {
  const parameters: Record<string, ToolParameter> = {}
  for (const mock of mocks) {
    for (const [key, value] of Object.entries(mock.matchParams ?? {})) {
      parameters[key] ??= new ToolParameter({ type: typeOf(value), required: false })
    }
  }
  return parameters
}

function typeOf(value: unknown): ToolParameterType {
  if (typeof value === "boolean") return "boolean"
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number"
  if (Array.isArray(value)) return "array"
  if (value !== null && typeof value === "object") return "object"
  return "string"
}
