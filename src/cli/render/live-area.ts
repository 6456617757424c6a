/**
 * The live part of a terminal: one line per thing in progress (the model thinking, each running
 * tool call), each with a spinner and its elapsed time, redrawn in place below the finished
 * lines. Everything else written to stderr during a run goes through `print`, which clears the
 * area, writes above it and draws it again, so the two never mix.
 */
import { formatDuration } from "../ask/format.ts"
import type { Style } from "./style.ts"

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
const INTERVAL_MS = 100

export type LiveAreaOptions = {
  /** Raw stderr: the area writes cursor moves (labels must already be terminal-safe). */
  write: (text: string) => void
  columns: () => number
  style: Style
  now?: () => number
}

export class LiveArea {
  readonly #options: LiveAreaOptions
  readonly #now: () => number
  readonly #entries = new Map<string, { label: string; since: number }>()
  #drawn = 0
  #frame = 0
  #paused = 0
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(options: LiveAreaOptions) {
    this.#options = options
    this.#now = options.now ?? (() => performance.now())
  }

  /** Shows (or relabels) an entry; its clock starts now unless it was already shown. */
  set(id: string, label: string): void {
    const since = this.#entries.get(id)?.since ?? this.#now()
    this.#entries.set(id, { label, since })
    this.#refresh()
  }

  delete(id: string): void {
    if (!this.#entries.delete(id)) return
    this.#refresh()
  }

  has(id: string): boolean {
    return this.#entries.has(id)
  }

  /** Entries but `except`. */
  othersThan(except: string): number {
    return [...this.#entries.keys()].filter((k) => k !== except).length
  }

  /** Writes finished lines above the area. */
  print(text: string): void {
    this.#clear()
    this.#options.write(text)
    this.#draw()
  }

  /** Clears the area until `resume` (someone else writes: the answer, a prompt). Nests. */
  pause(): void {
    this.#paused++
    this.#clear()
    this.#stopTimer()
  }

  resume(): void {
    if (this.#paused === 0) return
    this.#paused--
    this.#refresh()
  }

  /** Removes every entry and the area itself. */
  stop(): void {
    this.#entries.clear()
    this.#paused = 0
    this.#clear()
    this.#stopTimer()
  }

  #refresh(): void {
    this.#clear()
    this.#draw()
    if (this.#entries.size === 0 || this.#paused > 0) this.#stopTimer()
    else if (!this.#timer) {
      this.#timer = setInterval(() => {
        this.#frame = (this.#frame + 1) % FRAMES.length
        this.#clear()
        this.#draw()
      }, INTERVAL_MS)
      this.#timer.unref?.()
    }
  }

  #draw(): void {
    if (this.#paused > 0 || this.#entries.size === 0) return
    const { style, columns } = this.#options
    const width = columns() - 1
    const now = this.#now()
    let text = ""
    for (const { label, since } of this.#entries.values()) {
      const took = ` ${formatDuration(now - since)}`
      // One row each, whatever the width: a wrapped row would break the redraw.
      const room = Math.max(1, width - 2 - took.length)
      const shown = label.length > room ? `${label.slice(0, room - 1)}…` : label
      text += `${style.cyan(FRAMES[this.#frame] ?? "·")} ${shown}${style.dim(took)}\n`
    }
    this.#options.write(text)
    this.#drawn = this.#entries.size
  }

  #clear(): void {
    if (this.#drawn === 0) return
    // Up to the area's first row, then erase to the end of the screen.
    this.#options.write(`\x1b[${this.#drawn}A\r\x1b[J`)
    this.#drawn = 0
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = undefined
  }
}
