import type { ApprovalCallback, ApprovalDecision } from "../../agent/approval.ts"
import type { PendingApproval } from "../../agent/events.ts"
import { formatCall } from "./format.ts"
import type { LineReader } from "./line-reader.ts"
import type { Progress } from "./progress.ts"

/** What the model is told when nobody can be asked (CONTRACT §2: "the model is told so"). */
export const NO_TTY_FEEDBACK = "No TTY to ask for approval; rerun with --yes or interactively."

/** `--yes`: approve everything. The hard-deny list is enforced by the tools themselves. */
export const approveAll: ApprovalCallback = () => true

/**
 * `--yes` on a person's terminal or log: approves, and says which command it approved, since
 * nobody saw a question. `note` writes one line above the progress.
 */
export function approveAllSaying(note: (line: string) => void): ApprovalCallback {
  return (pending) => {
    note(`approved by --yes: ${pending.description || formatCall(pending.tool_name, pending.params)}`)
    return true
  }
}

/** No terminal and no `--yes`: deny, and tell the model how the user could allow it. */
export const denyWithoutTerminal: ApprovalCallback = () => ({ approved: false, feedback: NO_TTY_FEEDBACK })

/**
 * Asks on the terminal: `Run restart_service(service=nginx)? [y/N]`, then an optional feedback
 * line when denied. Calls of one step run concurrently, so questions are queued and asked one at
 * a time.
 */
export function askOnTerminal(
  reader: LineReader,
  progress: Progress,
  write: (text: string) => void,
  /** The current run's signal: Ctrl+C at the question denies the call and stops the run. */
  runSignal: () => AbortSignal | undefined,
): ApprovalCallback {
  let queue: Promise<unknown> = Promise.resolve()
  return (pending) => {
    const decision = queue.then(() => ask(pending))
    queue = decision.catch(() => undefined)
    return decision
  }

  async function ask(pending: PendingApproval): Promise<ApprovalDecision> {
    const signal = runSignal()
    // Queued behind a question the user answered with Ctrl+C: the run is over, do not ask.
    if (signal?.aborted) return { approved: false, feedback: "The user stopped the run." }
    progress.hold()
    try {
      const call = formatCall(pending.tool_name, pending.params)
      if (pending.description && pending.description !== call) write(`  ${pending.description}\n`)
      const answer = await reader.read(`Run ${call}? [y/N] `, { fresh: true, signal })
      if (answer === null) return { approved: false, feedback: "The user did not answer." }
      if (/^\s*y(es)?\s*$/i.test(answer)) return { approved: true }
      const feedback = await reader.read("Feedback for the model (optional, Enter to skip): ", { signal })
      return { approved: false, feedback: feedback?.trim() || undefined }
    } finally {
      // Time spent waiting for the user is not the tool's.
      progress.restartClock(pending.tool_call_id)
      progress.release()
    }
  }
}
