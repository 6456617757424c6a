import { render } from "preact"
import { App } from "./app.ts"
import { html } from "./html.ts"

const root = document.getElementById("app")
if (root) render(html`<${App} />`, root)
