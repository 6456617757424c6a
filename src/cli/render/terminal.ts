/**
 * What the terminal can show, decided once per `ask`: colour and in-place updates need a real
 * terminal (not a pipe, not `TERM=dumb`), and `NO_COLOR` or `--no-color` turns styling off.
 */
import type { Env } from "../../config/env.ts"

export type TerminalFacts = {
  /** stderr takes cursor moves: a live status area with spinners, updated in place. */
  live: boolean
  /** stderr lines may carry colour (✓ green, ✗ red, denial yellow, remarks dim). */
  color: boolean
  /** The answer on stdout is rendered markdown (else raw markdown, as a pipe gets it). */
  render: boolean
  /** stdout is a terminal: the answer may stream in as the model writes it. */
  streamAnswer: boolean
  /** Width of the terminal, read each time (it may be resized). */
  columns: () => number
  /** Height of the terminal. */
  rows: () => number
}

type Stream = { isTTY?: boolean; columns?: number; rows?: number }

export function terminalFacts(options: {
  env: Env
  noColor: boolean
  stdout: Stream
  stderr: Stream
}): TerminalFacts {
  const { env, stdout, stderr } = options
  // https://no-color.org: present and not empty.
  const noColor = options.noColor || (env.NO_COLOR !== undefined && env.NO_COLOR !== "")
  const capable = (stream: Stream) => stream.isTTY === true && env.TERM !== "dumb"
  return {
    live: capable(stderr),
    color: capable(stderr) && !noColor,
    render: capable(stdout) && !noColor,
    streamAnswer: capable(stdout),
    columns: () => Math.max(20, stdout.columns ?? stderr.columns ?? 80),
    rows: () => Math.max(5, stdout.rows ?? stderr.rows ?? 24),
  }
}

/** Facts for output that is not a terminal (tests, `--json`). */
export const PLAIN_TERMINAL: TerminalFacts = {
  live: false,
  color: false,
  render: false,
  streamAnswer: false,
  columns: () => 80,
  rows: () => 24,
}
