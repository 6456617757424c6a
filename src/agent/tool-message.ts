import { fenceClose, fenceOpen, neutraliseFences, newFenceId } from "../tool/fence.ts"
import { type StructuredToolResult, ToolResultStatus } from "../tool/result.ts"

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
export function toolMessageContent(result: StructuredToolResult): string {
  const head = [`status: ${result.status}`]
  if (result.returnCode !== null) head.push(`exit code: ${result.returnCode}`)
  const status = head.join(", ")
  const error = result.error ? `error: ${result.error}` : ""
  const data = result.dataText()
  if (!error && !data) return result.status === ToolResultStatus.NO_DATA ? `${status}\n(no output)` : status
  const body =
    error && data ? `${neutraliseFences(error)}\n${neutraliseFences(data)}` : neutraliseFences(error || data)
  const id = newFenceId()
  return `${status}\n${fenceOpen(id)}\n${body}\n${fenceClose(id)}`
}
