import { type CutMessage, cutToolMessage } from "../context/tool-result.ts"
import type { TokenCounter } from "../llm/tokens.ts"
import type { ToolCall } from "../llm/types.ts"
import { fenceClose, fenceOpen, neutraliseFences, newFenceId } from "../tool/fence.ts"
import { type StructuredToolResult, ToolResultStatus } from "../tool/result.ts"

/** What a finished call's `tool` message is built from. */
export type ToolMessageParts = {
  call: ToolCall
  result: StructuredToolResult
  /** Trusted text before the fenced output: a held-back toolset's instructions, handed out once. */
  note?: string | undefined
  /** The fence's id (`newFenceId()`): given, so the same parts always build the same message. */
  fenceId: string
  /** Tokens the message may take (context/limits.ts `toolResultBudget`); past it the output is cut. */
  budget: number
  counter: TokenCounter
}

/**
 * The `tool` message the model reads for a finished call: the note, then the status line and the
 * fenced output, cut to the budget with a paging note. No side effects: a cut message comes back
 * with its `truncation` and its whole content (`full`) for the run to record and keep for
 * `read_tool_output` (RunTools.toolMessage). Async only to cut a large output in slices.
 */
export function buildToolMessage(parts: ToolMessageParts, signal?: AbortSignal): Promise<CutMessage> {
  const name = parts.call.function.name
  const output = toolMessageContent(parts.result, parts.fenceId)
  const content = parts.note ? `${parts.note}\n\n${output}` : output
  const message = { role: "tool" as const, tool_call_id: parts.call.id, name, content }
  return cutToolMessage(message, name, parts.budget, parts.counter, signal, parts.result.spill)
}

/**
 * The content of a `tool` message the model reads: a status line first and the output last, so a
 * truncated result still ends with the marker and the status is never what gets cut. The output
 * (already redacted by the executor) is fenced as untrusted data; see fence.ts for why the closing
 * delimiter may be cut.
 *
 * Built as one concatenation of the parts (the same text as `fence(body.join("\n"))`): the data
 * can be the spawn cap's 10 MB, and a join would copy it once more before the context window cuts
 * the message to its budget. Neutralising error and data apart is the same as neutralising their
 * join: a fence look-alike cannot span the newline between them.
 */
export function toolMessageContent(result: StructuredToolResult, fenceId: string = newFenceId()): string {
  const head = [`status: ${result.status}`]
  if (result.returnCode !== null) head.push(`exit code: ${result.returnCode}`)
  const status = head.join(", ")
  const error = result.error ? `error: ${result.error}` : ""
  const data = result.dataText()
  if (!error && !data) return result.status === ToolResultStatus.NO_DATA ? `${status}\n(no output)` : status
  const body =
    error && data ? `${neutraliseFences(error)}\n${neutraliseFences(data)}` : neutraliseFences(error || data)
  return `${status}\n${fenceOpen(fenceId)}\n${body}\n${fenceClose(fenceId)}`
}
