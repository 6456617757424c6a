import { type StructuredToolResult, ToolResultStatus } from "../tool/result.ts"

/**
 * The content of a `tool` message the model reads: a status line first and the output last, so a
 * truncated result still ends with the marker and the status is never what gets cut.
 */
export function toolMessageContent(result: StructuredToolResult): string {
  const head = [`status: ${result.status}`]
  if (result.returnCode !== null) head.push(`exit code: ${result.returnCode}`)
  const lines = [head.join(", ")]
  if (result.error) lines.push(`error: ${result.error}`)
  const data = result.dataText()
  if (result.status === ToolResultStatus.NO_DATA && !data) lines.push("(no output)")
  if (data) lines.push(data)
  return lines.join("\n")
}
