import type { ToolDecision } from "../agent/decisions.ts"
import { echo, echoList } from "../agent/echo.ts"
import { RequestError } from "../errors.ts"
import type { ToolCall, ToolSchema } from "../llm/types.ts"
import { CORE_TOOL_NAMES } from "../tool/core-names.ts"

type FunctionFields = {
  name: string
  description?: string | undefined
  parameters?: Record<string, unknown> | null | undefined
}

/**
 * A `frontend_tools` item: an OpenAI function definition, or HolmesGPT's own item (the function's
 * fields at the top, with its `mode`: `noop` runs on without waiting, the model reading
 * `noop_response`).
 */
export type FrontendToolInput =
  | { type?: "function" | undefined; function: FunctionFields }
  | (FunctionFields & { mode?: "pause" | "noop" | undefined; noop_response?: string | null | undefined })

/** What the model reads after a `noop` call when the client set no `noop_response`. */
export const NOOP_RESPONSE = "The client carried out this action; it returns no output."

/** HolmesGPT's `frontend_tool_results` item: what the client's tool returned. */
export type FrontendToolResultInput = {
  tool_call_id: string
  tool_name?: string | null | undefined
  result: unknown
}

/**
 * The frontend tools as the model sees them. A name that is also one of dupin's tools (configured,
 * or one a run adds itself: `search_tools`, `read_tool_output`, `TodoWrite`) is refused:
 * a call to it would be ambiguous, and a client must not be able to answer for a tool dupin runs.
 */
export function frontendToolSchemas(
  tools: readonly FrontendToolInput[],
  dupinTools: Readonly<Record<string, unknown>>,
  field: string,
): ToolSchema[] {
  const seen = new Set<string>()
  return tools.map((tool, i) => {
    const fields = functionOf(tool)
    const { name } = fields
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
      throw new RequestError(
        `${field}[${i}] has the name ${echo(name)}; tool names are 1-64 letters, digits, _ or -.`,
      )
    }
    if (seen.has(name)) throw new RequestError(`${field} names ${echo(name)} twice.`)
    if (Object.hasOwn(dupinTools, name) || CORE_TOOL_NAMES.has(name)) {
      throw new RequestError(
        `${field}[${i}] is named ${echo(name)}, which is one of dupin's own tools; rename it.`,
      )
    }
    seen.add(name)
    return {
      type: "function",
      function: {
        name,
        description: fields.description ?? "",
        parameters: fields.parameters ?? { type: "object", properties: {} },
      },
    }
  })
}

/** The `noop` tools by name, each with what the model reads after a call to it. */
export function noopResponses(tools: readonly FrontendToolInput[]): Map<string, string> {
  return new Map(
    tools.flatMap((tool) =>
      "mode" in tool && tool.mode === "noop" ? [[tool.name, tool.noop_response || NOOP_RESPONSE]] : [],
    ),
  )
}

function functionOf(tool: FrontendToolInput): FunctionFields {
  return "function" in tool ? tool.function : tool
}

/** Whether a paused call is one the client executes: dupin has no tool of its name. */
export function isFrontendCall(call: ToolCall, dupinTools: Readonly<Record<string, unknown>>): boolean {
  return !Object.hasOwn(dupinTools, call.function.name)
}

/**
 * Joins approval decisions and frontend results into the engine's decisions, after checking each
 * answers the right kind of paused call: a result is only accepted for a frontend call the run
 * asked for (signatures are verified afterwards, with every other decision), an approval only for
 * a call dupin would run.
 */
export function joinDecisions(
  decisions: readonly ToolDecision[],
  results: readonly FrontendToolResultInput[],
  pending: readonly ToolCall[],
  dupinTools: Readonly<Record<string, unknown>>,
  names: { results: string; decisions: string } = CHAT_FIELDS,
): ToolDecision[] {
  const byId = new Map(pending.map((c) => [c.id, c]))
  const neverAsked = results.filter((r) => {
    const call = byId.get(r.tool_call_id)
    return !call || !isFrontendCall(call, dupinTools)
  })
  if (neverAsked.length > 0) {
    throw new RequestError(
      `${names.results} answers ${echoList(neverAsked.map((r) => r.tool_call_id))}, which is not a frontend tool call waiting for its result.`,
    )
  }
  for (const r of results) {
    const call = byId.get(r.tool_call_id)
    if (r.tool_name && call && r.tool_name !== call.function.name) {
      throw new RequestError(
        `${names.results} names ${echo(r.tool_name)} for ${echo(r.tool_call_id)}, which called ${echo(call.function.name)}.`,
      )
    }
  }
  const misdirected = decisions.filter((d) => {
    const call = byId.get(d.tool_call_id)
    return call !== undefined && isFrontendCall(call, dupinTools)
  })
  if (misdirected.length > 0) {
    throw new RequestError(
      `${names.decisions} names ${echoList(misdirected.map((d) => d.tool_call_id))}, a frontend tool call: send its output in ${names.results}.`,
    )
  }
  return [
    // Rebuilt field by field: only a frontend result may stand in for running a call.
    ...decisions.map((d) => ({
      tool_call_id: d.tool_call_id,
      approved: d.approved,
      ...(d.feedback ? { feedback: d.feedback } : {}),
    })),
    ...results.map((r) => ({ tool_call_id: r.tool_call_id, approved: true, result: resultText(r.result) })),
  ]
}

const CHAT_FIELDS = { results: "frontend_tool_results", decisions: "tool_decisions" }

function resultText(result: unknown): string {
  return typeof result === "string" ? result : JSON.stringify(result ?? null)
}
