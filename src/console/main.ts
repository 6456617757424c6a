import { render } from "preact"
import { App } from "./app.ts"
import { html } from "./html.ts"

const root = document.getElementById("app")
if (root) {
  // index.html ships the question box, so the page is usable before this script has loaded: what
  // was typed there (and the focus) carries over into the app's own box.
  const early = root.querySelector("textarea")
  const draft = early?.value ?? ""
  const focused = early !== null && document.activeElement === early
  root.replaceChildren()
  render(html`<${App} draft=${draft} />`, root)
  if (focused) root.querySelector<HTMLTextAreaElement>('textarea[aria-label="Question"]')?.focus()
}
