import type { ToolExecutor } from "../../tool/executor.ts"
import type { LineReader } from "./line-reader.ts"
import type { AskSession } from "./session.ts"
import type { ToolOutputs } from "./tool-outputs.ts"
import { contextView, toolsView } from "./views.ts"

export type ReplDeps = {
  reader: LineReader
  session: AskSession
  executor: ToolExecutor
  outputs: ToolOutputs
  write: (text: string) => void
  /** Runs one question and prints its answer; reports failures itself. */
  turn: (question: string) => Promise<void>
  /** `/model NAME`: the line to print (the switch, or why not and the names that work). */
  switchModel: (name: string | undefined) => string
  /** Shows a long text through the pager (or plain when stdout is not a terminal). */
  page: (text: string) => Promise<void>
}

/** Slash commands with their help; Tab completes the names. */
const COMMANDS: ReadonlyArray<[string, string]> = [
  ["/help", "this list"],
  ["/exit", "quit (also exit, quit, Ctrl+D)"],
  ["/clear", "start a new conversation (also clear)"],
  ["/tools", "list toolsets and tools"],
  ["/context", "token use of the conversation by role"],
  ["/show", "/show N pages tool call N's full output; /show lists the calls"],
  ["/last", "page the last tool call's full output"],
  ["/model", "/model NAME switches model; /model lists the models"],
]

const KEYS = `Keys:
  Left/Right, Home/End, Ctrl+A/E      move; Alt+B/F or Ctrl+Left/Right by word
  Ctrl+K/U/W, Alt+Backspace, Ctrl+Y   delete to end/start/word back, paste it back
  Up/Down, Ctrl+R                     history (kept in $XDG_STATE_HOME/dupin/history), search it
  Alt+Enter, or a line ending in \\    continue on a new line (a paste stays one question)
  Tab                                 complete a /command
  Ctrl+L clears the screen; Ctrl+C stops a run (twice exits); Ctrl+D on an empty line exits`

export const HELP = `Commands:
${COMMANDS.map(([name, text]) => `  ${name.padEnd(10)} ${text}`).join("\n")}
${KEYS}
`

/** Tab at the prompt: the slash commands that start with what is typed. */
export function completeCommand(text: string): string[] {
  if (!/^\/[a-z]*$/.test(text)) return []
  return COMMANDS.map(([name]) => name).filter((name) => name.startsWith(text))
}

/** Interactive follow-ups: reads questions until end of input or `/exit`. */
export async function followUpLoop(deps: ReplDeps): Promise<void> {
  const { reader, write } = deps
  for (;;) {
    const line = await reader.read("\n> ", { history: true })
    if (line === null) {
      write("\n")
      return
    }
    const text = line.trim()
    if (text === "") continue
    const outcome = await command(deps, text)
    if (outcome === "exit") return
    if (outcome === "question") await deps.turn(text)
  }
}

/** Runs `text` if it is a command; "question" when it is not one. */
async function command(deps: ReplDeps, text: string): Promise<"exit" | "done" | "question"> {
  const { session, write, outputs } = deps
  const [name = "", ...rest] = text.split(/\s+/)
  const arg = rest.join(" ") || undefined
  // The bare words work too, alone on the line ("exit the pod?" is a question).
  if (!name.startsWith("/") && rest.length > 0) return "question"
  switch (name.startsWith("/") ? name : name.toLowerCase()) {
    case "/exit":
    case "/quit":
    case "exit":
    case "quit":
      return "exit"
    case "/clear":
    case "clear":
      session.clear()
      write("Started a new conversation.\n")
      return "done"
    case "/tools":
      write(toolsView(deps.executor))
      return "done"
    case "/context":
      write(contextView(session.metadata))
      return "done"
    case "/help":
      write(HELP)
      return "done"
    case "/model":
      write(`${deps.switchModel(arg)}\n`)
      return "done"
    case "/last":
      return show(deps, outputs.count)
    case "/show": {
      if (arg === undefined) {
        write(outputs.list())
        return "done"
      }
      const n = Number(arg)
      if (!Number.isInteger(n) || n < 1) {
        write(`/show takes a call number from 1 to ${outputs.count}, not "${arg}".\n`)
        return "done"
      }
      return show(deps, n)
    }
  }
  // "/var/log is full" is a question; a lone "/word" is a mistyped command.
  if (/^\/[a-z]+$/.test(name)) {
    write(`Unknown command ${name}.\n${HELP}`)
    return "done"
  }
  return "question"
}

async function show(deps: ReplDeps, n: number): Promise<"done"> {
  const text = n > 0 ? await deps.outputs.show(n) : undefined
  if (text === undefined) {
    deps.write(
      deps.outputs.count === 0
        ? "No tool has run in this session yet.\n"
        : `No tool call ${n}: this session has calls 1 to ${deps.outputs.count} (/show lists them).\n`,
    )
    return "done"
  }
  await deps.page(text)
  return "done"
}
