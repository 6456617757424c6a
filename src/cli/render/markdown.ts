/**
 * Markdown to styled terminal text, by marked and marked-terminal (headings, emphasis, lists,
 * tables, code blocks coloured by language, links followed by their URL). The input must already
 * be terminal-safe (output.ts `terminalSafe`): the renderer adds escape sequences of its own.
 */
import { Marked } from "marked"
import { markedTerminal } from "marked-terminal"

export function renderMarkdown(markdown: string, width: number): string {
  const marked = new Marked(markedTerminal({ width, reflowText: true, showSectionPrefix: false, tab: 2 }))
  const out = marked.parse(markdown, { async: false })
  return `${out.replace(/\n+$/, "")}\n`
}
