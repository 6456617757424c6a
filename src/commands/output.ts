/**
 * Terminal output. stdout carries only the result (the answer, JSON, tables) so it can be piped;
 * progress, prompts and errors go to stderr.
 */

/**
 * Control characters but `\n` and `\t` (C0, DEL, C1 such as the one-byte CSI U+009B), and the
 * bidirectional overrides and isolates that make text read differently from what it is.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * Text as it may reach a terminal. Answers, tool output, errors and approval prompts carry what
 * the model and tools chose, and a prompt-injected model can print escape sequences that retitle
 * the window, erase or rewrite lines (a different command above `Run …? [y/N]`), or write the
 * clipboard (OSC 52). Without ESC and the C1 controls none of them is a sequence any more.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, "")
}

/** Writes to stdout and resolves once written, so a following `process.exit` cannot cut it short. */
export async function writeStdout(text: string): Promise<void> {
  const safe = terminalSafe(text)
  await Bun.write(Bun.stdout, safe.endsWith("\n") ? safe : `${safe}\n`)
}

export function writeStderr(text: string): void {
  process.stderr.write(terminalSafe(text))
}

/**
 * Writes dupin's own styling and cursor moves. Every untrusted part of `text` (model text, tool
 * output, arguments) must have gone through `terminalSafe` first.
 */
export function writeStderrRaw(text: string): void {
  process.stderr.write(text)
}

/** stdout's counterpart of `writeStderrRaw`: the streamed and the rendered answer. */
export function writeStdoutRaw(text: string): Promise<void> {
  // process.stdout keeps the order of the streamed pieces; resolves once this one is written.
  return new Promise((resolve) => process.stdout.write(text, () => resolve()))
}

/** A fixed-width table for humans; scripts use --json. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd()
  return [line(header), ...rows.map(line)].join("\n")
}
