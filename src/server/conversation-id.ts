import { createHash } from "node:crypto"
import type { ChatMessage, ContentPart } from "../llm/types.ts"

/**
 * A digest of the conversation a pending approval was issued in: every message up to and
 * including the assistant message whose calls wait (`pending_approval` markers left out, since
 * they are added after signing). Approval signatures cover it, so a signed call cannot be moved
 * into another conversation: one whose history would make the same call mean something else to
 * the approver, or one the attacker wrote.
 *
 * Stateless and deterministic over what the client sends back: only the fields the history
 * validator keeps and the provider sees take part (role, content, tool calls, tool_call_id), as a
 * JSON array of arrays, so key order and fields a client adds or drops cannot change it.
 */
export function conversationId(turn: readonly ChatMessage[]): string {
  const hash = createHash("sha256")
  // Message by message, so a history of many megabytes is never one more string in memory.
  for (const message of turn) hash.update(`${JSON.stringify(project(message))}\n`)
  return hash.digest("base64url")
}

function project(message: ChatMessage): unknown[] {
  switch (message.role) {
    case "system":
      return ["system", message.content]
    case "user":
      return ["user", typeof message.content === "string" ? message.content : message.content.map(part)]
    case "assistant":
      return [
        "assistant",
        message.content ?? null,
        (message.tool_calls ?? []).map((c) => [c.id, c.function.name, c.function.arguments]),
      ]
    case "tool":
      return ["tool", message.tool_call_id, message.content]
  }
}

function part(p: ContentPart): unknown[] {
  return p.type === "text" ? ["text", p.text] : ["image_url", p.image_url.url]
}
