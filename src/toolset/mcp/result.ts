/**
 * A `tools/call` result as a tool result: text content joined, images, audio and resources
 * described (type, size, URI), `isError` as status error with the server's text.
 */
import type { CallToolResult } from "@modelcontextprotocol/client"
import { StructuredToolResult, ToolResultStatus } from "../../tool/result.ts"

type Block = CallToolResult["content"][number]

export function toolResult(
  result: CallToolResult,
  maxBytes: number,
  invocation: string,
  redact: (text: string) => string = (text) => text,
): StructuredToolResult {
  const parts = (result.content ?? []).map(describe)
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent, null, 2))
  const text = redact(cut(parts.join("\n"), maxBytes))
  if (result.isError) {
    return new StructuredToolResult({
      status: ToolResultStatus.ERROR,
      error: text || "The MCP server reported an error without a message.",
      invocation,
    })
  }
  return new StructuredToolResult({ status: ToolResultStatus.SUCCESS, data: text, invocation })
}

function describe(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${decodedSize(block.data)} bytes]`
    case "resource": {
      const resource = block.resource
      if ("text" in resource && typeof resource.text === "string") {
        return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}]\n${resource.text}`
      }
      const size = "blob" in resource && typeof resource.blob === "string" ? decodedSize(resource.blob) : 0
      return `[resource ${resource.uri}: ${resource.mimeType ?? "binary"}, ${size} bytes]`
    }
    case "resource_link":
      return `[resource link ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ""}${block.name ? `: ${block.name}` : ""}]`
    default:
      return `[${(block as { type: string }).type} content]`
  }
}

/** Bytes of base64 data once decoded. */
function decodedSize(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding)
}

/** The first `maxBytes` bytes of the text (whole characters), then `[TRUNCATED]`. */
function cut(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 4) return text
  const bytes = new TextEncoder().encode(text)
  if (bytes.byteLength <= maxBytes) return text
  const kept = new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, "")
  return `${kept}\n[TRUNCATED]`
}
