/**
 * Terminal output. stdout carries only the result (the answer, JSON, tables) so it can be piped;
 * progress, prompts and errors go to stderr.
 */

/** Writes to stdout and resolves once written, so a following `process.exit` cannot cut it short. */
export async function writeStdout(text: string): Promise<void> {
  await Bun.write(Bun.stdout, text.endsWith("\n") ? text : `${text}\n`)
}

export function writeStderr(text: string): void {
  process.stderr.write(text)
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
