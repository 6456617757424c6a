import { fence } from "../tool/fence.ts"
import { type StructuredToolResult, ToolResultStatus } from "../tool/result.ts"

/**
 * The content of a `tool` message the model reads: a status line first and the output last, so a
 * truncated result still ends with the marker and the status is never what gets cut. The output
 * (already redacted by the executor) is fenced as untrusted data; see fence.ts for why the closing
 * delimiter may be cut.
 */
export function toolMessageContent(result: StructuredToolResult): string {
  const head = [`status: ${result.status}`]
  if (result.returnCode !== null) head.push(`exit code: ${result.returnCode}`)
  const status = head.join(", ")
  const body: string[] = []
  if (result.error) body.push(`error: ${result.error}`)
  const data = result.dataText()
  if (data) body.push(data)
  if (body.length === 0) return result.status === ToolResultStatus.NO_DATA ? `${status}\n(no output)` : status
  return `${status}\n${fence(body.join("\n"))}`
}
