import { useState } from "preact/hooks"
import { html } from "./html.ts"

type Props = {
  /** The box's text at first render. */
  draft?: string
  running: boolean
  blocked: string | undefined
  onSend: (text: string) => void
  onStop: () => void
}

/** The question box: Enter sends, Shift+Enter is a new line; Stop (or Esc) while a request runs. */
export function Composer({ draft = "", running, blocked, onSend, onStop }: Props) {
  const [text, setText] = useState(draft)
  const send = () => {
    const question = text.trim()
    if (!question || running || blocked) return
    setText("")
    onSend(question)
  }
  return html`
    <form
      class="composer"
      onSubmit=${(e: Event) => {
        e.preventDefault()
        send()
      }}
    >
      <textarea
        aria-label="Question"
        placeholder=${blocked ?? "Ask dupin… (Enter sends, Shift+Enter for a new line)"}
        rows="2"
        value=${text}
        onInput=${(e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown=${(e: KeyboardEvent) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault()
            send()
          }
        }}
      ></textarea>
      ${
        running
          ? html`<button type="button" class="stop" onClick=${onStop}>Stop</button>`
          : html`<button type="submit" disabled=${Boolean(blocked)}>Send</button>`
      }
    </form>
  `
}
