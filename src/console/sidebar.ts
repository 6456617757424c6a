import { html } from "./html.ts"
import type { Conversation } from "./types.ts"

type Props = {
  conversations: readonly Conversation[]
  currentId: string
  onSelect: (id: string) => void
  onNew: () => void
}

/** The conversations kept in this browser, newest first. */
export function Sidebar({ conversations, currentId, onSelect, onNew }: Props) {
  const sorted = [...conversations].sort((a, b) => b.updatedAt - a.updatedAt)
  return html`
    <nav class="sidebar" aria-label="Conversations">
      <button type="button" class="new" onClick=${onNew}>New conversation</button>
      <ul>
        ${sorted.map(
          (c) => html`<li key=${c.id}>
            <button
              type="button"
              class="conversation-link"
              aria-current=${c.id === currentId ? "page" : undefined}
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
