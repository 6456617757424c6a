/**
 * Markdown to styled terminal text, by marked and marked-terminal (headings, emphasis, lists,
 * tables, code blocks coloured by language, links followed by their URL). The input must already
 * be terminal-safe (output.ts `terminalSafe`): the renderer adds escape sequences of its own.
 */
import { Marked, type Tokens } from "marked"
import { markedTerminal } from "marked-terminal"
import { foldWideTables } from "./fold-tables.ts"

export function renderMarkdown(markdown: string, width: number): string {
  const extension = markedTerminal({ width, reflowText: true, showSectionPrefix: false, tab: 2 })
  const plainText = extension.renderer?.text
  if (extension.renderer && plainText) {
    // A tight list item's text carries inline tokens (code, emphasis, links) that marked-terminal's
    // text renderer drops, printing `code` and **bold** raw; render them inline instead.
    extension.renderer.text = function (token: Tokens.Text | Tokens.Escape) {
      if ("tokens" in token && token.tokens?.length) return this.parser.parseInline(token.tokens)
      return plainText.call(this, token)
    }
  }
  const out = new Marked(extension).parse(foldWideTables(markdown, width), { async: false })
  return `${out.replace(/\n+$/, "")}\n`
}
