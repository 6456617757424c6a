import { mkdtempSync, rmSync, unlinkSync } from "node:fs"
import { join } from "node:path"
import { spillParent } from "./containment/index.ts"

/**
 * The whole kept output of a long tool run, decoded and redacted in the off-loop worker and
 * written to a file there; the run's `output` is only its first PREFIX_CHARS characters. A 10 MB
 * string on the event loop is 10 MB of fresh memory (40-200 ms of page faults on a VM, finding
 * R11), eight at a time in a step of parallel calls; the model reads a budget's worth anyway and
 * pages the rest (read_tool_output), which reads this file.
 *
 * The file is removed by whoever adopts it (the run's output store, when the request ends), or
 * when the object is collected, or at exit.
 */
export class SpilledOutput {
  #removed = false

  constructor(
    readonly file: string,
    /** Characters of the whole redacted output. */
    readonly chars: number,
    /** Bytes the run kept (what the output budgets count). */
    readonly bytes: number,
    /** Lines of the whole redacted output (as read_tool_output counts them). */
    readonly lines: number,
    /** The output's first characters, to find where it starts inside a message. */
    readonly start: string,
  ) {
    unclaimed.register(this, file, this)
  }

  /** The whole redacted output (a read of up to the spawn cap, for paging). */
  text(): Promise<string> {
    return Bun.file(this.file).text()
  }

  remove(): void {
    if (this.#removed) return
    this.#removed = true
    unclaimed.unregister(this)
    removeQuietly(this.file)
  }
}

/** Characters of a spilled output kept as its run's `output`: over the default result budget (25,000 tokens × 8). */
export const PREFIX_CHARS = 256 * 1024

const unclaimed = new FinalizationRegistry<string>(removeQuietly)
let dir: string | undefined

/** A fresh path for a spill file, in a 0700 folder of dupin's state (hidden from every tool sandbox). */
export function spillPath(): string {
  if (!dir) {
    const made = mkdtempSync(join(spillParent(), "dupin-spill-"))
    dir = made
    process.once("exit", () => rmSync(made, { recursive: true, force: true }))
  }
  return join(dir, `${crypto.randomUUID()}.txt`)
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file)
  } catch {
    // Already gone.
  }
}
