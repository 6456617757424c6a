import { useState } from "preact/hooks"
import { html } from "./html.ts"

/** Shown when the API answers 401 (CONTRACT §9): the token is kept for this tab only. */
export function TokenPrompt({ onToken }: { onToken: (token: string) => void }) {
  const [token, setToken] = useState("")
  return html`
    <form
      class="token-prompt"
      role="dialog"
      aria-label="Sign in"
      onSubmit=${(e: Event) => {
        e.preventDefault()
        if (token.trim()) onToken(token.trim())
      }}
    >
      <p>This server needs an API token. It is kept in this tab only (sessionStorage).</p>
      <input
        type="password"
        aria-label="API token"
        autocomplete="off"
        value=${token}
        onInput=${(e: Event) => setToken((e.currentTarget as HTMLInputElement).value)}
      />
      <button type="submit">Use token</button>
    </form>
  `
}
