import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { Env } from "../../config/env.ts"
import { redact } from "../../redact.ts"

/** Entries kept in the file: the oldest go first. */
export const HISTORY_MAX_ENTRIES = 1000
/** A longer entry (a pasted log) is used once but not kept: history is for questions. */
const MAX_ENTRY_CHARS = 10_000

/** `$XDG_STATE_HOME/dupin/history`, or `~/.local/state/dupin/history` when it is unset or empty. */
export function historyPath(env: Env): string | undefined {
  const state = env.XDG_STATE_HOME?.trim()
  if (state) return join(state, "dupin", "history")
  const home = env.HOME?.trim()
  return home ? join(home, ".local", "state", "dupin", "history") : undefined
}

/**
 * The questions typed at the `> ` prompt, newest last, shared across sessions through a 0600 file
 * in a 0700 directory. A line the redactor would change (a key, a token, a password=…) is never
 * written: history files get copied around and read by other tools.
 */
export class History {
  readonly #path: string | undefined
  #entries: string[]

  constructor(path: string | undefined) {
    this.#path = path
    this.#entries = path ? load(path) : []
  }

  get entries(): readonly string[] {
    return this.#entries
  }

  /** Records a submitted line; returns false when it was not kept (empty, secret, too long). */
  add(line: string): boolean {
    const entry = line.trim()
    if (!entry || entry.length > MAX_ENTRY_CHARS || looksSecret(entry)) return false
    if (this.#entries.at(-1) !== entry) this.#entries.push(entry)
    if (this.#entries.length > HISTORY_MAX_ENTRIES) this.#entries = this.#entries.slice(-HISTORY_MAX_ENTRIES)
    if (this.#path) {
      // Merged with the file as it is now, so two sessions open at once both keep their questions.
      const onDisk = load(this.#path)
      if (onDisk.at(-1) !== entry) onDisk.push(entry)
      save(this.#path, onDisk.slice(-HISTORY_MAX_ENTRIES))
    }
    return true
  }

  /** The newest entry before index `before` that contains `query`, with its index. */
  search(query: string, before: number): { index: number; entry: string } | undefined {
    for (let i = Math.min(before, this.#entries.length) - 1; i >= 0; i--) {
      const entry = this.#entries[i] as string
      if (entry.includes(query)) return { index: i, entry }
    }
    return undefined
  }
}

export function looksSecret(line: string): boolean {
  return redact(line) !== line
}

function load(path: string): string[] {
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l.length > 0)
      .map(decode)
      .slice(-HISTORY_MAX_ENTRIES)
  } catch {
    // No history yet, or unreadable: start empty; the first save says what is wrong.
    return []
  }
}

function save(path: string, entries: readonly string[]): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    // Written whole to a temp file then renamed, so two sessions never interleave half lines.
    const temp = `${path}.${process.pid}.tmp`
    writeFileSync(temp, `${entries.map(encode).join("\n")}\n`, { mode: 0o600 })
    chmodSync(temp, 0o600)
    renameSync(temp, path)
  } catch {
    // A read-only home must not break the conversation; history is a convenience.
  }
}

/** One entry per file line: backslashes and newlines escaped. */
function encode(entry: string): string {
  return entry.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")
}

function decode(line: string): string {
  return line.replace(/\\(\\|n)/g, (_m, c: string) => (c === "n" ? "\n" : "\\"))
}
