import type { Active, LineEditor } from "./editor.ts"
import type { Key } from "./keys.ts"

/** One key in edit mode (not searching): the editing, movement, history and control keys. */
export function handleEditKey(editor: LineEditor, active: Active, key: Key): void {
  const b = active.buffer
  switch (key.kind) {
    case "text":
    case "paste":
      b.insert(key.text)
      {
        editor.draw()
        return
      }
    case "meta":
      if (key.letter === "b") b.wordLeft()
      else if (key.letter === "f") b.wordRight()
      else if (key.letter === "d") b.killWordRight()
      {
        editor.draw()
        return
      }
    case "ctrl": {
      controlKey(editor, active, key.letter)
      return
    }
    case "key":
      break
  }
  const word = key.ctrl === true || key.meta === true
  switch (key.name) {
    case "enter":
      if (key.meta) b.insert("\n")
      else if (b.cursor === b.text.length && b.text.endsWith("\\")) {
        // A trailing backslash continues the question on the next line, as in a shell.
        b.backspace()
        b.insert("\n")
      } else {
        editor.submit(b.text)
        return
      }
      break
    case "backspace":
      if (key.meta) b.killWordLeft()
      else b.backspace()
      break
    case "delete":
      b.deleteForward()
      break
    case "left":
      if (word) b.wordLeft()
      else b.left()
      break
    case "right":
      if (word) b.wordRight()
      else b.right()
      break
    case "home":
      b.lineStart()
      break
    case "end":
      b.lineEnd()
      break
    case "up": {
      lineOrHistory(editor, active, -1)
      return
    }
    case "down": {
      lineOrHistory(editor, active, 1)
      return
    }
    case "tab": {
      complete(editor, active)
      return
    }
    case "escape":
      return
  }
  editor.draw()
}

function controlKey(editor: LineEditor, active: Active, letter: string): void {
  const b = active.buffer
  switch (letter) {
    case "a":
      b.lineStart()
      break
    case "e":
      b.lineEnd()
      break
    case "b":
      b.left()
      break
    case "f":
      b.right()
      break
    case "k":
      b.killToEnd()
      break
    case "u":
      b.killToStart()
      break
    case "w":
      b.killBigWordLeft()
      break
    case "y":
      b.yank()
      break
    case "d":
      if (b.text === "") {
        editor.submit(null)
        return
      }
      b.deleteForward()
      break
    case "c": {
      editor.interrupt()
      return
    }
    case "l": {
      editor.clearScreen()
      return
    }
    case "r": {
      editor.startSearch()
      return
    }
    case "p": {
      lineOrHistory(editor, active, -1)
      return
    }
    case "n": {
      lineOrHistory(editor, active, 1)
      return
    }
    default:
      return
  }
  editor.draw()
}

/** Up/Down: between the lines of a multi-line text, else through history. */
function lineOrHistory(editor: LineEditor, active: Active, delta: -1 | 1): void {
  const b = active.buffer
  const { line, lines } = b.lineInfo
  if ((delta < 0 && line > 0) || (delta > 0 && line < lines - 1)) {
    b.moveLine(delta)
    editor.draw()
    return
  }
  if (!active.history) return
  const entries = editor.history.entries
  const next = active.browse + delta
  if (next < 0 || next > entries.length) return
  if (active.browse === entries.length) active.draft = b.text
  active.browse = next
  b.set(next === entries.length ? active.draft : (entries[next] as string))
  editor.draw()
}

/** Tab: a unique completion is taken with a space after it; several are listed. */
function complete(editor: LineEditor, active: Active): void {
  const b = active.buffer
  const candidates = editor.completions(b.text)
  if (candidates.length === 0) return
  if (candidates.length === 1) {
    b.set(`${candidates[0]} `)
    editor.draw()
    return
  }
  const common = commonPrefix(candidates)
  if (common.length > b.text.length) {
    b.set(common)
    editor.draw()
    return
  }
  editor.notice(`${candidates.join("  ")}\n`)
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? ""
  for (const w of words) while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1)
  return prefix
}
