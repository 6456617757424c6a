import { RequestError } from "../errors.ts"
import type { AssistantMessage, ChatMessage, ToolMessage } from "../llm/types.ts"
import { StructuredToolResult } from "../tool/result.ts"
import { type ApprovalDecision, deniedText } from "./approval.ts"
import type { StreamMessage } from "./events.ts"
import { boundedRunner, callKey, type FinishedCall, resultEvent, type StepContext } from "./tool-step.ts"

/** The assistant message whose calls wait for decisions, and its index in the history. */
export function findPendingTurn(
  history: readonly ChatMessage[],
): { index: number; message: AssistantMessage } | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]
    if (m?.role !== "assistant") continue
    if (m.tool_calls?.some((c) => c.pending_approval)) return { index: i, message: m }
    return undefined
  }
  return undefined
}

/**
 * Runs the approved pending calls (with exactly the arguments in the history, which the caller has
 * verified against their signatures), turns denials into error results, and puts every result in
 * the history in the order the model asked for the calls. Mutates `history`.
 */
export async function* applyDecisions(
  history: ChatMessage[],
  decisions: Map<string, ApprovalDecision>,
  step: StepContext,
): AsyncGenerator<StreamMessage, void> {
  const turn = findPendingTurn(history)
  if (!turn)
    throw new RequestError(
      "tool_decisions were sent but the conversation has no tool call waiting for approval.",
    )
  const calls = turn.message.tool_calls ?? []
  const pending = calls.filter((c) => c.pending_approval)
  const pendingIds = new Set(pending.map((c) => c.id))
  for (const id of decisions.keys()) {
    if (!pendingIds.has(id))
      throw new RequestError(`tool_decisions names ${id}, which is not a tool call waiting for approval.`)
  }
  const undecided = pending.filter((c) => !decisions.has(c.id)).map((c) => c.id)
  if (undecided.length > 0) {
    throw new RequestError(`Every pending tool call needs a decision; missing: ${undecided.join(", ")}.`)
  }

  const run = boundedRunner(step)
  const tasks = pending.map(async (call): Promise<FinishedCall> => {
    const prepared = step.executor.prepare(call)
    const description = step.executor.describe(prepared)
    const decision = decisions.get(call.id)!
    if (!decision.approved) {
      return {
        prepared,
        description,
        result: StructuredToolResult.error(deniedText(decision.feedback), prepared.params),
      }
    }
    if (prepared.tool) step.seen.add(callKey(prepared.tool.name, prepared.params))
    return { prepared, description, result: await run(prepared, true) }
  })
  const finished = await Promise.all(tasks)
  for (const f of finished) yield resultEvent(f, step)

  // Rebuild the tool block after the assistant message in the model's order.
  const existing = new Map<string, ToolMessage>()
  let end = turn.index + 1
  while (history[end]?.role === "tool") {
    const m = history[end] as ToolMessage
    existing.set(m.tool_call_id, m)
    end++
  }
  for (const f of finished) existing.set(f.prepared.call.id, step.toMessage(f))
  const block = calls.flatMap((c) => existing.get(c.id) ?? [])
  const cleaned: AssistantMessage = {
    ...turn.message,
    tool_calls: calls.map(({ pending_approval: _, ...c }) => c),
  }
  history.splice(turn.index, end - turn.index, cleaned, ...block)
}
