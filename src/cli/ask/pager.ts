import { terminalSafe } from "../../commands/output.ts"
import type { Env } from "../../config/env.ts"

/** less: quit when it fits on one screen, leave the text on screen afterwards. */
const DEFAULT_PAGER = "less -FX"

/**
 * Shows `text` through `$PAGER` (or less) when stdout is a terminal, else writes it plain. The
 * session's own reading of the terminal is paused meanwhile, so the pager gets every key.
 */
export async function page(
  text: string,
  options: { env: Env; terminal: boolean; write: (text: string) => void | Promise<void> },
): Promise<void> {
  const pager = options.env.PAGER?.trim() || DEFAULT_PAGER
  if (!options.terminal || pager === "cat") {
    await options.write(text)
    return
  }
  process.stdin.pause()
  try {
    // Through sh, like git and man do: PAGER may carry options ("less -R").
    const proc = Bun.spawn(["sh", "-c", pager], {
      stdin: "pipe",
      stdout: "inherit",
      stderr: "inherit",
      env: options.env,
    })
    try {
      // Tool output may carry escape sequences (a hostile log line): a pager like cat or sed
      // passes them to the terminal, so they go the way everything else printed does.
      proc.stdin.write(terminalSafe(text))
      await proc.stdin.end()
    } catch {
      // The pager quit before reading everything (q pressed): that is the user's choice.
    }
    const code = await proc.exited
    // sh's 127: the pager is not installed; the text must still reach the user.
    if (code === 127) await options.write(text)
  } finally {
    process.stdin.resume()
  }
}
