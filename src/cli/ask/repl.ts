import type { ToolExecutor } from "../../tool/executor.ts"
import type { LineReader } from "./line-reader.ts"
import type { AskSession } from "./session.ts"
import { contextView, toolsView } from "./views.ts"

export type ReplDeps = {
  reader: LineReader
  session: AskSession
  executor: ToolExecutor
  write: (text: string) => void
  /** Runs one question and prints its answer; reports failures itself. */
  turn: (question: string) => Promise<void>
}

const HELP = `Commands:
  /exit      quit (or Ctrl+D)
  /clear     start a new conversation
  /tools     list toolsets and tools
  /context   token use of the conversation by role
  /help      this list
`

/** Interactive follow-ups: reads questions until end of input or `/exit`. */
export async function followUpLoop(deps: ReplDeps): Promise<void> {
  const { reader, session, write } = deps
  for (;;) {
    const line = await reader.read("\n> ")
    if (line === null) {
      write("\n")
      return
    }
    const text = line.trim()
    if (text === "") continue
    switch (text) {
      case "/exit":
      case "/quit":
        return
      case "/clear":
        session.clear()
        write("Started a new conversation.\n")
        continue
      case "/tools":
        write(toolsView(deps.executor))
        continue
      case "/context":
        write(contextView(session.metadata))
        continue
      case "/help":
        write(HELP)
        continue
    }
    // "/var/log is full" is a question; a lone "/word" is a mistyped command.
    if (/^\/[a-z]+$/.test(text)) {
      write(`Unknown command ${text}.\n${HELP}`)
      continue
    }
    await deps.turn(text)
  }
}
