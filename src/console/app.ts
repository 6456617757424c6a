import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { chat, fetchModels, hasToken, saveToken, Unauthorized } from "./api.ts"
import { applyEvent, endInterrupted } from "./apply-event.ts"
import { Composer } from "./composer.ts"
import { ContextMeter } from "./context-meter.ts"
import { conversationMarkdown } from "./export-markdown.ts"
import { html } from "./html.ts"
import { Investigations } from "./investigations.ts"
import { Sidebar, type View } from "./sidebar.ts"
import {
  loadConversations,
  loadCurrentId,
  newConversation,
  saveConversations,
  settleAfterReload,
} from "./store.ts"
import { TokenPrompt } from "./token-prompt.ts"
import { Transcript } from "./transcript.ts"
import type { Conversation, Decision } from "./types.ts"

const MODEL_KEY = "dupin.model"

function initialState(): { conversations: Conversation[]; currentId: string } {
  const conversations = loadConversations().map(settleAfterReload)
  const saved = loadCurrentId()
  const current = conversations.find((c) => c.id === saved) ?? conversations[0]
  if (current) return { conversations, currentId: current.id }
  const fresh = newConversation()
  return { conversations: [fresh], currentId: fresh.id }
}

/**
 * The console: state lives here, each piece of the page is its own component. Conversation
 * objects are mutated in place by the stream and the page re-renders by bumping `version`.
 */
/** `draft`: what was typed into the page's question box before the app took it over. */
export function App({ draft = "" }: { draft?: string }) {
  // Taken by the first question box mounted, so a box mounted later (back from Investigations)
  // starts empty.
  const early = useRef(draft)
  const takeDraft = () => {
    const text = early.current
    early.current = ""
    return text
  }
  const [state] = useState(initialState)
  const [conversations, setConversations] = useState(state.conversations)
  const [currentId, setCurrentId] = useState(state.currentId)
  const [, setVersion] = useState(0)
  const [models, setModels] = useState<string[]>([])
  const [model, setModel] = useState(() => localStorage.getItem(MODEL_KEY) ?? "")
  const [tokenRetry, setTokenRetry] = useState<(() => void) | undefined>(undefined)
  const [now, setNow] = useState(Date.now())
  const [view, setView] = useState<View>("chat")
  const running = useRef<{ controller: AbortController; conv: Conversation } | undefined>(undefined)
  const conv = conversations.find((c) => c.id === currentId) ?? conversations[0]

  const refresh = useCallback(() => setVersion((v) => v + 1), [])
  const persist = useCallback(() => {
    saveConversations(conversations, currentId)
    refresh()
  }, [conversations, currentId, refresh])

  const askToken = (retry: () => void) => setTokenRetry(() => retry)

  const loadModels = () => {
    fetchModels().then(setModels, (error: unknown) => {
      if (error instanceof Unauthorized) askToken(loadModels)
    })
  }
  useEffect(loadModels, [])
  useEffect(() => saveConversations(conversations, currentId), [conversations, currentId])

  const stop = useCallback(() => running.current?.controller.abort(), [])
  // Esc stops the running request from anywhere on the page.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") stop()
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [stop])

  const run = async (target: Conversation, body: Record<string, unknown>) => {
    const controller = new AbortController()
    running.current = { controller, conv: target }
    const ticker = setInterval(() => setNow(Date.now()), 100)
    refresh()
    let ended = false
    try {
      for await (const event of chat(body, controller.signal)) {
        applyEvent(target, event)
        ended ||= ["ai_answer_end", "approval_required", "error"].includes(event.event)
        target.updatedAt = Date.now()
        refresh()
      }
      if (!ended) endInterrupted(target, "The connection ended before the answer.")
    } catch (error) {
      if (error instanceof Unauthorized) askToken(() => void run(target, body))
      else if (controller.signal.aborted) endInterrupted(target, "Stopped.")
      else target.entries.push({ kind: "error", code: 0, message: `The request failed: ${String(error)}` })
    } finally {
      clearInterval(ticker)
      running.current = undefined
      setNow(Date.now())
      persist()
    }
  }

  const requestBase = (): Record<string, unknown> => ({
    enable_tool_approval: true,
    ...(models.length > 1 && model && models.includes(model) ? { model } : {}),
    ...(conv?.history ? { conversation_history: conv.history } : {}),
  })

  const send = (text: string) => {
    if (!conv || running.current) return
    if (conv.entries.length === 0) conv.title = text.length > 60 ? `${text.slice(0, 57)}…` : text
    conv.entries.push({ kind: "user", text })
    void run(conv, { ...requestBase(), ask: text })
  }

  /** Each pending call gets a decision; the resume request goes once all are decided. */
  const decide = (id: string, decision: Decision) => {
    if (!conv || running.current) return
    conv.decisions[id] = decision
    refresh()
    if (!conv.pending.every((p) => conv.decisions[p.tool_call_id])) return
    const tool_decisions = conv.pending.map((p) => {
      const d = conv.decisions[p.tool_call_id] as Decision
      return {
        tool_call_id: p.tool_call_id,
        approved: d.approved,
        ...(d.feedback ? { feedback: d.feedback } : {}),
      }
    })
    conv.pending = []
    void run(conv, { ...requestBase(), tool_decisions })
  }

  const startNew = () => {
    setView("chat")
    stop()
    const fresh = newConversation()
    setConversations([fresh, ...conversations])
    setCurrentId(fresh.id)
  }
  const rename = () => {
    if (!conv) return
    const title = prompt("Rename conversation", conv.title)?.trim()
    if (title) conv.title = title
    persist()
  }
  const remove = () => {
    if (!conv || !confirm(`Delete “${conv.title}”?`)) return
    if (running.current?.conv === conv) stop()
    const rest = conversations.filter((c) => c !== conv)
    const next = rest[0] ?? newConversation()
    setConversations(rest.length > 0 ? rest : [next])
    setCurrentId(next.id)
  }
  const exportMarkdown = () => {
    if (!conv) return
    const url = URL.createObjectURL(new Blob([conversationMarkdown(conv)], { type: "text/markdown" }))
    const a = document.createElement("a")
    a.href = url
    a.download = `${conv.title.replace(/[^\w.-]+/g, "-").slice(0, 60) || "conversation"}.md`
    a.click()
    setTimeout(() => URL.revokeObjectURL(url), 1000)
  }

  if (!conv) return null
  const busy = running.current !== undefined
  const blocked = conv.pending.length > 0 ? "Approve or deny the pending call first." : undefined
  const tokenPrompt =
    tokenRetry &&
    html`<${TokenPrompt}
      rejected=${hasToken()}
      onToken=${(token: string) => {
        saveToken(token)
        const retry = tokenRetry
        setTokenRetry(undefined)
        retry()
      }}
    />`
  const sidebar = html`<${Sidebar}
    conversations=${conversations}
    currentId=${conv.id}
    onSelect=${(id: string) => {
      setCurrentId(id)
      setView("chat")
    }}
    onNew=${startNew}
    view=${view}
    onView=${setView}
  />`
  if (view === "investigations")
    return html`
      ${sidebar}
      <main class="main">
        <header class="topbar"><h1>Investigations</h1></header>
        ${tokenPrompt}
        <${Investigations} onUnauthorized=${askToken} />
      </main>
    `
  return html`
    ${sidebar}
    <main class="main">
      <header class="topbar">
        <h1>${conv.title}</h1>
        <div class="actions">
          <button type="button" onClick=${rename}>Rename</button>
          <button type="button" onClick=${exportMarkdown}>Export markdown</button>
          <button type="button" onClick=${remove}>Delete</button>
        </div>
        <label class="model">
          Model
          <select
            aria-label="Model"
            value=${model || models[0]}
            onChange=${(e: Event) => {
              const value = (e.currentTarget as HTMLSelectElement).value
              setModel(value)
              localStorage.setItem(MODEL_KEY, value)
            }}
          >
            ${models.map((m) => html`<option key=${m} value=${m}>${m}</option>`)}
          </select>
        </label>
        <${ContextMeter} metadata=${conv.metadata} />
      </header>
      ${tokenPrompt}
      <${Transcript} conv=${conv} now=${now} onDecide=${decide} />
      <${Composer} draft=${takeDraft()} running=${busy} blocked=${blocked} onSend=${send} onStop=${stop} />
    </main>
  `
}
