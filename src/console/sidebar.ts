import { html } from "./html.ts"
import type { Conversation } from "./types.ts"

type Props = {
  conversations: readonly Conversation[]
  currentId: string
  onSelect: (id: string) => void
  onNew: () => void
  view: View
  onView: (view: View) => void
}

export type View = "chat" | "investigations"

/** The conversations kept in this browser, newest first. */
export function Sidebar({ conversations, currentId, onSelect, onNew, view, onView }: Props) {
  const sorted = [...conversations].sort((a, b) => b.updatedAt - a.updatedAt)
  return html`
    <nav class="sidebar" aria-label="Conversations">
      <div class="views" role="group" aria-label="View">
        <button type="button" aria-pressed=${view === "chat"} onClick=${() => onView("chat")}>Chat</button>
        <button type="button" aria-pressed=${view === "investigations"} onClick=${() => onView("investigations")}>
          Investigations
        </button>
      </div>
      <button type="button" class="new" onClick=${onNew}>New conversation</button>
      <ul>
        ${sorted.map(
          (c) => html`<li key=${c.id}>
            <button
              type="button"
              class="conversation-link"
              aria-current=${view === "chat" && c.id === currentId ? "page" : undefined}
              onClick=${() => onSelect(c.id)}
            >
              ${c.title}
            </button>
          </li>`,
        )}
      </ul>
    </nav>
  `
}
