import { useState } from "preact/hooks"
import { html } from "./html.ts"

/** Shown when the API answers 401 (CONTRACT §9): the token is kept for this tab only. */
export function TokenPrompt({ onToken, rejected }: { onToken: (token: string) => void; rejected: boolean }) {
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
      ${rejected && html`<p role="alert">The server did not accept that token (401). Check it and try again.</p>`}
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
