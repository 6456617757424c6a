import { createHash } from "node:crypto"
import { checkDecisions, type ToolDecision } from "../../agent/decisions.ts"
import { echo } from "../../agent/echo.ts"
import { RequestError } from "../../errors.ts"
import type { ChatMessage, ToolCall } from "../../llm/types.ts"
import { type ApprovalSigner, SIGNATURE_MISMATCH } from "../approvals.ts"
import { conversationId } from "../conversation-id.ts"
import { joinDecisions } from "../frontend-tools.ts"
import type { AguiResumeEntry } from "./input.ts"
import type { ConvertedMessages } from "./messages.ts"

/**
 * What an AG-UI approval's signature is bound to: the conversation up to the asking message
 * (dupin's system prompt left out: dupin rebuilds it each run, and it may change with toolset
 * health), the thread, and the token the client authenticated with. A signed call therefore
 * cannot be replayed in another thread, nor by a client holding another token.
 */
export function aguiConversation(scope: string, threadId: string, turn: readonly ChatMessage[]): string {
  // An assistant message without text is `null` in dupin and has no content in AG-UI: one form.
  const normal = turn
    .filter((m) => m.role !== "system")
    .map((m) => (m.role === "assistant" && m.content === "" ? { ...m, content: null } : m))
  return createHash("sha256")
    .update(JSON.stringify(["agui", scope, threadId, conversationId(normal)]))
    .digest("base64url")
}

/** The binding scope of a server: a digest of its token, or empty when it has none. */
export function tokenScope(token: string | undefined): string {
  return token ? createHash("sha256").update(token).digest("base64url") : ""
}

/**
 * The run's decisions from the resume entries (approvals) and the client's tool messages
 * (frontend results), each checked against the calls waiting and their signatures before anything
 * runs. Throws RequestError (400) for an entry that answers nothing, a call left unanswered, or a
 * signature that does not verify over the history as sent.
 */
export function resumeDecisions(
  entries: readonly AguiResumeEntry[],
  converted: ConvertedMessages,
  history: readonly ChatMessage[],
  binding: { scope: string; threadId: string },
  dupinTools: Readonly<Record<string, unknown>>,
  signer: ApprovalSigner,
): ToolDecision[] | undefined {
  const { pending } = converted
  if (entries.length === 0 && pending.length === 0) return undefined
  if (pending.length === 0) {
    throw new RequestError(
      "resume was sent, but the conversation has no tool call waiting (was it already resumed?).",
    )
  }
  const approvals = entries.map(decisionOf)
  const results = [...converted.frontendResults].map(([id, r]) => ({ tool_call_id: id, result: r.content }))
  const decisions = joinDecisions(approvals, results, pending, dupinTools, {
    results: "the tool messages",
    decisions: "resume",
  })
  checkDecisions(pending, decisions)
  const turnEnd = history.findLastIndex((m) => m.role === "assistant")
  const conversation = aguiConversation(binding.scope, binding.threadId, history.slice(0, turnEnd + 1))
  for (const call of pending) refuseUnverified(call, conversation, signer)
  // Spent synchronously after the checks: two concurrent resumes cannot both pass them.
  const full = signer.spend(pending)
  if (full) throw new RequestError(`The resume cannot be accepted now: ${full}.`)
  return decisions
}

function refuseUnverified(call: ToolCall, conversation: string, signer: ApprovalSigner): void {
  const problem = signer.verify(call, conversation)
  if (problem) {
    // Over AG-UI the signature also covers the thread and the token (aguiConversation).
    const bindings =
      problem === SIGNATURE_MISMATCH
        ? " Over AG-UI, resume in the thread that paused it (its threadId), with the same token."
        : ""
    throw new RequestError(
      `Tool call ${echo(call.id)} (${echo(call.function.name)}) cannot be resumed: ${problem}.${bindings}`,
    )
  }
}

/** `resolved` with `{approved, feedback?}`; `cancelled` is a denial. */
function decisionOf(entry: AguiResumeEntry, i: number): ToolDecision {
  if (entry.status === "cancelled") return { tool_call_id: entry.interruptId, approved: false }
  const payload = entry.payload
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new RequestError(`resume[${i}].payload must be {"approved": true|false, "feedback"?: "..."}.`)
  }
  const { approved, feedback } = payload as Record<string, unknown>
  if (typeof approved !== "boolean") {
    throw new RequestError(`resume[${i}].payload.approved must be true or false.`)
  }
  if (feedback !== undefined && typeof feedback !== "string") {
    throw new RequestError(`resume[${i}].payload.feedback must be a string.`)
  }
  return { tool_call_id: entry.interruptId, approved, ...(feedback ? { feedback } : {}) }
}
