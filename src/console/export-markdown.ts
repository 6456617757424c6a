import type { Conversation, Entry } from "./types.ts"

/** A conversation as a markdown document, for a ticket or a postmortem. */
export function conversationMarkdown(conv: Conversation): string {
  return [`# ${conv.title}`, "", ...conv.entries.map(entryMarkdown)].join("\n")
}

function entryMarkdown(e: Entry): string {
  switch (e.kind) {
    case "user":
      return `## Question\n\n${e.text}\n`
    case "assistant":
      return `${e.text}\n`
    case "tool":
      return [
        `### Tool \`${e.name}\` (${e.status})`,
        "",
        fence(JSON.stringify(e.args ?? {}, null, 2), "json"),
        ...(e.output !== undefined ? ["", fence(e.output, "")] : []),
        "",
      ].join("\n")
    case "notice":
      return `> ${e.text}\n`
    case "error":
      return `> **Error ${e.code}:** ${e.message}\n`
  }
}

/** A fence longer than any backtick run inside, so tool output cannot close it early. */
function fence(text: string, lang: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const ticks = "`".repeat(longest + 1)
  return `${ticks}${lang}\n${text}\n${ticks}`
}
