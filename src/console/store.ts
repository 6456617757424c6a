import type { Conversation } from "./types.ts"

/**
 * Conversations are kept in this browser only (localStorage): the server is stateless, and the
 * signed history it returns is all a follow-up needs.
 */
const KEY = "dupin.conversations"
const CURRENT = "dupin.current"

export function loadConversations(): Conversation[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? "[]")
    return Array.isArray(parsed) ? (parsed as Conversation[]) : []
  } catch {
    return []
  }
}

export function saveConversations(
  conversations: readonly Conversation[],
  currentId: string | undefined,
): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(conversations))
    if (currentId) localStorage.setItem(CURRENT, currentId)
  } catch {
    // Storage full or disabled: the page keeps working; only reload loses the conversation.
  }
}

export function loadCurrentId(): string | undefined {
  return localStorage.getItem(CURRENT) ?? undefined
}

export function newConversation(): Conversation {
  return {
    id: crypto.randomUUID(),
    title: "Untitled",
    updatedAt: Date.now(),
    entries: [],
    history: null,
    pending: [],
    decisions: {},
  }
}

/** A page reloaded mid-request cannot resume that stream: what was running is shown as stopped. */
export function settleAfterReload(conv: Conversation): Conversation {
  for (const e of conv.entries) {
    if (e.kind === "tool" && e.status === "running") e.status = "stopped"
    if (e.kind === "assistant") e.streaming = false
  }
  return conv
}
