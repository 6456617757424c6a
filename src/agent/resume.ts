import type { AssistantMessage, ChatMessage, ToolMessage } from "../llm/types.ts"
import { StructuredToolResult, ToolResultStatus } from "../tool/result.ts"
import { deniedText } from "./approval.ts"
import { checkDecisions, type ToolDecision } from "./decisions.ts"
import type { EngineEvent } from "./events.ts"
import {
  boundedRunner,
  callKey,
  type FinishedCall,
  parseArguments,
  resultEvent,
  type StepContext,
} from "./tool-step.ts"

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
  decisions: readonly ToolDecision[],
  step: StepContext,
): AsyncGenerator<EngineEvent, void> {
  const turn = findPendingTurn(history)
  const calls = turn?.message.tool_calls ?? []
  const pending = calls.filter((c) => c.pending_approval)
  const byId = checkDecisions(pending, decisions)
  if (!turn) return // not reached: no pending turn means no pending call, which checkDecisions refuses

  const run = boundedRunner(step)
  const tasks = pending.map(async (call): Promise<FinishedCall> => {
    const prepared = step.tools.prepare(call)
    const description = step.tools.describe(prepared)
    const decision = byId.get(call.id)!
    if (decision.result !== undefined) {
      // A frontend tool: the client ran it and this is its output, as the model will read it.
      const params = parseArguments(call.function.arguments)
      return {
        prepared: { ...prepared, params },
        description,
        result: new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: decision.result, params }),
      }
    }
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
  for (const f of finished) existing.set(f.prepared.call.id, await step.toMessage(f))
  const block = calls.flatMap((c) => existing.get(c.id) ?? [])
  const cleaned: AssistantMessage = {
    ...turn.message,
    tool_calls: calls.map(({ pending_approval: _, ...c }) => c),
  }
  history.splice(turn.index, end - turn.index, cleaned, ...block)
}
