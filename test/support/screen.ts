/**
 * What a terminal would show after some output: the text is played into a headless xterm.js
 * (the terminal emulator of VS Code and many web consoles), so cursor moves and erases apply as
 * on a real screen. Tests use it to check what is left on screen, not just what was written.
 */
import xterm from "@xterm/headless"

export async function screenOf(output: string, cols = 200, rows = 50): Promise<string> {
  // PtySession keeps `\n` for the terminal's `\r\n`: convertEol turns each back into both.
  const term = new xterm.Terminal({ cols, rows, convertEol: true, allowProposedApi: true, scrollback: 1000 })
  await new Promise<void>((resolve) => term.write(output, resolve))
  const buffer = term.buffer.active
  const lines: string[] = []
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i)
    const text = line?.translateToString(true) ?? ""
    // A row the terminal wrapped continues the line above: join them back.
    if (line?.isWrapped && lines.length > 0) lines[lines.length - 1] += text
    else lines.push(text)
  }
  term.dispose()
  while (lines.length > 0 && lines.at(-1) === "") lines.pop()
  return lines.join("\n")
}
