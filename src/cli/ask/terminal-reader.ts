import type { Env } from "../../config/env.ts"
import { LineEditor } from "../editor/editor.ts"
import { History, historyPath } from "../editor/history.ts"
import { type LineReader, PlainLineReader } from "./line-reader.ts"

export type TerminalReaderOptions = {
  env: Env
  write: (text: string) => void
  complete: (text: string) => string[]
  onInterrupt: () => void
}

/**
 * The reader for a terminal stdin: the line editor, or plain cooked-mode lines when the terminal
 * cannot take escape sequences (`TERM` unset or `dumb`, as in Emacs shells), has no raw mode, or
 * when stderr (where prompts go) is not the terminal.
 */
export function terminalReader(options: TerminalReaderOptions): LineReader {
  const term = options.env.TERM?.trim()
  const stdin = process.stdin
  // The editor draws on stderr: with stderr redirected there is nothing to draw on.
  const drawable = process.stderr.isTTY === true && typeof stdin.setRawMode === "function"
  if (!term || term === "dumb" || !drawable) {
    return new PlainLineReader(stdin, options.write)
  }
  return new LineEditor({
    input: stdin,
    // The editor's own cursor and clearing sequences go out as they are; the texts it shows
    // (prompts, the typed line) it makes safe itself.
    write: (text) => process.stderr.write(text),
    columns: () => process.stderr.columns || 80,
    history: new History(historyPath(options.env)),
    complete: options.complete,
    onInterrupt: options.onInterrupt,
  })
}
