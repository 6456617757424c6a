import { useEffect, useRef } from "preact/hooks"
import { html } from "./html.ts"
import { renderMarkdown } from "./markdown.ts"
import { ToolCard } from "./tool-card.ts"
import type { Conversation, Decision, Entry } from "./types.ts"

type Props = { conv: Conversation; now: number; onDecide: (id: string, decision: Decision) => void }

/** The conversation region: questions, answers (markdown), tool cards, notices, errors. */
export function Transcript({ conv, now, onDecide }: Props) {
  const end = useRef<HTMLDivElement>(null)
  const count = conv.entries.length
  const lastLength = textLength(conv.entries.at(-1))
  // Follow the stream as it grows.
  useEffect(() => end.current?.scrollIntoView({ block: "end" }), [count, lastLength])
  return html`
    <section class="transcript" aria-label="Conversation">
      ${count === 0 && html`<p class="empty">Ask about an incident, an alert, or a misbehaving service.</p>`}
      ${conv.entries.map((entry, i) => html`<${EntryView} key=${i} entry=${entry} conv=${conv} now=${now} onDecide=${onDecide} />`)}
      <div ref=${end}></div>
    </section>
  `
}

function EntryView({
  entry,
  conv,
  now,
  onDecide,
}: {
  entry: Entry
  conv: Conversation
  now: number
  onDecide: (id: string, decision: Decision) => void
}) {
  switch (entry.kind) {
    case "user":
      return html`<div class="question"><span class="visually-hidden">You asked: </span>${entry.text}</div>`
    case "assistant":
      // The only markup from outside the page, sanitized by markdown.ts.
      return html`<div class=${`answer${entry.streaming ? " streaming" : ""}`} dangerouslySetInnerHTML=${{
        __html: renderMarkdown(entry.text),
      }}></div>`
    case "tool": {
      const pending = conv.pending.find((p) => p.tool_call_id === entry.id)
      return html`<${ToolCard}
        tool=${entry}
        now=${now}
        pending=${pending}
        decision=${conv.decisions[entry.id]}
        onDecide=${onDecide}
      />`
    }
    case "notice":
      return html`<p class="notice" role="note">${entry.text}</p>`
    case "error":
      return html`<p class="error" role="alert"><strong>Error ${entry.code}</strong>: ${entry.message}</p>`
  }
}

function textLength(entry: Entry | undefined): number {
  return entry?.kind === "assistant" ? entry.text.length : 0
}
