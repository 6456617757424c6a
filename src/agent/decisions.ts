import { RequestError } from "../errors.ts"
import type { ToolCall } from "../llm/types.ts"
import type { ApprovalDecision } from "./approval.ts"
import { echo, echoList } from "./echo.ts"

/** One caller decision on a call left pending by an `approval_required` (spec `tool_decisions`). */
export type ToolDecision = {
  tool_call_id: string
  approved: boolean
  feedback?: string | null | undefined
  /** A frontend tool call's output, from the client that executed it: nothing runs here. */
  result?: string | undefined
}

/**
 * The one check of decisions against the calls waiting for them, for every face: each pending
 * call gets exactly one decision and nothing else is decided. Faces add their own proof that the
 * calls are genuine (HTTP verifies signatures) after this. Returns the decisions by call id.
 */
export function checkDecisions(
  pending: readonly ToolCall[],
  decisions: Iterable<ToolDecision>,
): Map<string, ApprovalDecision> {
  if (pending.length === 0) {
    throw new RequestError(
      "tool_decisions were sent, but the conversation has no tool call waiting for approval.",
    )
  }
  const byId = new Map<string, ApprovalDecision>()
  for (const d of decisions) {
    if (byId.has(d.tool_call_id))
      throw new RequestError(`tool_decisions names ${echo(d.tool_call_id)} twice.`)
    byId.set(d.tool_call_id, {
      approved: d.approved,
      ...(d.feedback ? { feedback: d.feedback } : {}),
      ...(d.result !== undefined ? { result: d.result } : {}),
    })
  }
  const pendingIds = new Set(pending.map((c) => c.id))
  const stray = [...byId.keys()].filter((id) => !pendingIds.has(id))
  if (stray.length > 0) {
    throw new RequestError(
      `tool_decisions names ${echoList(stray)}, which is not a tool call waiting for approval.`,
    )
  }
  const missing = pending.filter((c) => !byId.has(c.id)).map((c) => c.id)
  if (missing.length > 0) {
    throw new RequestError(
      `Every tool call waiting for approval needs a decision; missing: ${echoList(missing)}.`,
    )
  }
  return byId
}
