import type { ChatMessage, ToolCall, ToolSchema } from "../llm/types.ts"
import type { PendingApproval } from "./events.ts"

export type ApprovalDecision = { approved: boolean; feedback?: string | undefined; result?: string }

/** Library approval hook: decide one pending call. */
export type ApprovalCallback = (
  pending: PendingApproval,
) => boolean | ApprovalDecision | Promise<boolean | ApprovalDecision>

/**
 * How calls that need approval are handled:
 * - `callback`: ask the library caller (or the CLI's prompt) and go on;
 * - `pause`: end the run with `approval_required`, the pending calls signed in the history (HTTP);
 * - `off`: the call becomes an error result the model sees (spec, approval disabled).
 */
export type ApprovalMode =
  | { kind: "callback"; callback: ApprovalCallback }
  | {
      kind: "pause"
      /**
       * Signs the calls of one paused turn. `turn` is the history up to and including the
       * assistant message that asked for them (the server binds signatures to it).
       */
      sign: TurnSigner
    }
  | { kind: "off" }

/**
 * Signs the calls of one paused turn. `turn` is the history up to and including the assistant
 * message that asked for them (the server binds signatures to it).
 */
export type TurnSigner = (turn: readonly ChatMessage[]) => (call: ToolCall) => string

/**
 * Tools the client executes (AG-UI tools, HolmesGPT `frontend_tools`): offered to the model next to
 * dupin's own; a call to one pauses the run like a call waiting for approval, signed the same way,
 * and the client's result comes back as a decision carrying `result`. A tool in `noop` (HolmesGPT's
 * noop mode) does not pause: the client acts on the call it saw in the stream, and the model reads
 * the text given for it.
 */
export type FrontendTools = {
  tools: readonly ToolSchema[]
  sign: TurnSigner
  noop?: ReadonlyMap<string, string>
}

export const DENIED_TEXT = "Tool execution was denied by the user."

export function deniedText(feedback: string | undefined): string {
  return feedback?.trim() ? `${DENIED_TEXT} User feedback: ${feedback.trim()}` : DENIED_TEXT
}

export function approvalOffText(reason: string): string {
  return `${reason} This call needs a human's approval and approval is not enabled for this request, so it was not run. Use a read-only alternative, or tell the user which command to run or approve.`
}

export function normalizeDecision(value: boolean | ApprovalDecision): ApprovalDecision {
  return typeof value === "boolean" ? { approved: value } : value
}
