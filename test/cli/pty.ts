import { MAIN } from "./support.ts"

/**
 * `dupin` on a real pseudo-terminal (Bun's PTY spawn): stdin, stdout and stderr are the terminal,
 * so the CLI sees `isTTY`, prompts, and gets SIGINT from a typed Ctrl+C like with a person.
 */
export class PtySession {
  readonly proc: Bun.Subprocess
  #output = ""
  /** Where the next `waitFor` starts looking, so each wait sees only new output. */
  #cursor = 0

  constructor(args: readonly string[], env: Record<string, string>, cwd: string) {
    this.proc = Bun.spawn([process.execPath, MAIN, ...args], {
      // TERM=dumb unless the test asks for a real terminal type (the line editor needs one).
      env: { TERM: "dumb", ...env },
      cwd,
      terminal: {
        cols: 200,
        rows: 50,
        data: (_terminal, data) => {
          this.#output += new TextDecoder().decode(data).replaceAll("\r\n", "\n")
        },
      },
    })
  }

  get output(): string {
    return this.#output
  }

  /** Resolves with the text up to and including the first match after the cursor. */
  async waitFor(pattern: string | RegExp, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const rest = this.#output.slice(this.#cursor)
      const match = typeof pattern === "string" ? indexOf(rest, pattern) : rest.match(pattern)
      if (match) {
        const end = (match.index ?? 0) + match[0].length
        this.#cursor += end
        return rest.slice(0, end)
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${pattern}; output after cursor:\n${rest}`)
      }
      await Bun.sleep(20)
    }
  }

  type(text: string): void {
    this.proc.terminal?.write(text)
  }

  async exited(timeoutMs = 10_000): Promise<number> {
    const timer = setTimeout(() => this.proc.kill(), timeoutMs)
    try {
      return await this.proc.exited
    } finally {
      clearTimeout(timer)
      this.proc.terminal?.close()
    }
  }
}

function indexOf(text: string, needle: string): { index: number; 0: string } | null {
  const index = text.indexOf(needle)
  return index === -1 ? null : { index, 0: needle }
}
