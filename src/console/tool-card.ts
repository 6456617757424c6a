import { useState } from "preact/hooks"
import { html } from "./html.ts"
import type { Decision, PendingApproval, ToolEntry } from "./types.ts"

/** Lines of output per page: a 10 MB log must not freeze the tab. */
const PAGE_LINES = 200

const STATUS_LABEL: Record<ToolEntry["status"], string> = {
  running: "running",
  success: "done",
  error: "error",
  approval_required: "awaiting approval",
  stopped: "stopped",
}

type Props = {
  tool: ToolEntry
  now: number
  pending?: PendingApproval
  decision?: Decision
  onDecide: (id: string, decision: Decision) => void
}

/** One tool call, live: name, arguments, running time, status, and its output as text. */
export function ToolCard({ tool, now, pending, decision, onDecide }: Props) {
  const seconds =
    ((tool.endedAt ?? (tool.status === "running" ? now : tool.startedAt)) - tool.startedAt) / 1000
  return html`
    <article class=${`tool tool-${tool.status}`} aria-label=${tool.name}>
      <header>
        <strong class="tool-name">${tool.name}</strong>
        <span class="status" role="status">${STATUS_LABEL[tool.status]}</span>
        ${tool.status !== "approval_required" && !tool.untimed && html`<span class="elapsed">${seconds.toFixed(1)} s</span>`}
      </header>
      ${tool.description && html`<p class="description">${tool.description}</p>`}
      <div class="args">
        <span class="label">Arguments</span>
        <pre>${tool.args ? JSON.stringify(tool.args, null, 2) : "…"}</pre>
      </div>
      ${pending && html`<${Approval} pending=${pending} decision=${decision} onDecide=${onDecide} />`}
      ${tool.error && tool.error !== tool.output && html`<p class="tool-error">${tool.error}</p>`}
      ${tool.output !== undefined && html`<${Output} text=${tool.output} truncated=${tool.truncated === true} />`}
    </article>
  `
}

function Output({ text, truncated }: { text: string; truncated: boolean }) {
  // A trailing newline ends the last line; it does not start another.
  const lines = text.replace(/\n$/, "").split("\n")
  const [shown, setShown] = useState(PAGE_LINES)
  const visible = lines.length > shown ? lines.slice(0, shown).join("\n") : text
  return html`
    <details class="output">
      <summary>Output (${lines.length} ${lines.length === 1 ? "line" : "lines"})${truncated ? " · truncated" : ""}</summary>
      <pre>${visible}</pre>
      ${
        lines.length > shown &&
        html`<button type="button" onClick=${() => setShown(shown + PAGE_LINES)}>
        Show more (${lines.length - shown} lines left)
      </button>`
      }
      ${truncated && html`<p class="notice">The output was truncated: the model saw only the part above.</p>`}
    </details>
  `
}

function Approval({
  pending,
  decision,
  onDecide,
}: {
  pending: PendingApproval
  decision?: Decision
  onDecide: (id: string, decision: Decision) => void
}) {
  const [feedback, setFeedback] = useState("")
  if (decision)
    return html`<p class="decided">${decision.approved ? "Approved" : "Denied"}; waiting for the result…</p>`
  const decide = (approved: boolean) =>
    onDecide(pending.tool_call_id, { approved, feedback: feedback.trim() })
  return html`
    <div class="approval" role="group" aria-label=${`Approval for ${pending.tool_name}`}>
      <p>This call needs your approval before it runs.</p>
      <input
        type="text"
        aria-label="Feedback"
        placeholder="Feedback for the model (optional)"
        value=${feedback}
        onInput=${(e: Event) => setFeedback((e.currentTarget as HTMLInputElement).value)}
      />
      <div class="buttons">
        <button type="button" class="approve" onClick=${() => decide(true)}>Approve</button>
        <button type="button" class="deny" onClick=${() => decide(false)}>Deny</button>
      </div>
    </div>
  `
}
