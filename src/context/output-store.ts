import { mkdtempSync, writeFileSync } from "node:fs"
import { readFile, rm } from "node:fs/promises"
import { join } from "node:path"
import { spillParent } from "../tool/containment/index.ts"
import type { SpilledOutput } from "../tool/spilled-output.ts"

/**
 * Characters of full tool output kept in memory per request. The spawn cap already bounds one
 * result (10 MB by default), but a request can truncate many: past this, outputs go to disk.
 */
export const OUTPUT_STORE_MEMORY_CHARS = 8_000_000

type Entry = { toolName: string; length: number; text?: string; file?: string; spill?: Spilled }
/** A long output already on disk (tool/spilled-output.ts), after the message text `head`. */
type Spilled = { head: string; output: SpilledOutput }

/**
 * The full text of every tool result that was truncated in this request, so the model can page
 * through it with `read_tool_output`. One store per run; `dispose` (the run's `finally`) removes
 * the spill directory. Spill files are 0600 in a fresh 0700 `mkdtemp` directory inside dupin's
 * state folder (hidden from every tool sandbox) and are named by
 * sequence number, never by the model-chosen tool_call_id.
 */
export class OutputStore {
  private readonly entries = new Map<string, Entry>()
  private inMemory = 0
  private dir: string | undefined
  private files = 0
  private disposed = false
  private readonly adopted: SpilledOutput[] = []

  constructor(private readonly memoryChars = OUTPUT_STORE_MEMORY_CHARS) {}

  get size(): number {
    return this.entries.size
  }

  has(toolCallId: string): boolean {
    return this.entries.has(toolCallId)
  }

  toolName(toolCallId: string): string | undefined {
    return this.entries.get(toolCallId)?.toolName
  }

  /**
   * Synchronous because the loop builds tool messages synchronously; a spill writes at most one
   * capped tool output (10 MB by default), a few milliseconds.
   */
  put(toolCallId: string, toolName: string, text: string): void {
    if (this.disposed) return
    const previous = this.entries.get(toolCallId)
    if (previous?.text !== undefined) this.inMemory -= previous.length
    if (this.inMemory + text.length <= this.memoryChars) {
      this.inMemory += text.length
      this.entries.set(toolCallId, { toolName, length: text.length, text })
      return
    }
    // Inside dupin's state folder, which no tool sandbox shows (R7: other conversations' spills).
    this.dir ??= mkdtempSync(join(spillParent(), "dupin-output-"))
    const file = join(this.dir, `${++this.files}.txt`)
    writeFileSync(file, text, { mode: 0o600, flag: "wx" })
    this.entries.set(toolCallId, { toolName, length: text.length, file })
  }

  /**
   * A long output a worker already wrote to a file: the store takes it over (removes it with the
   * request) and serves `head` followed by the file's text.
   */
  putSpilled(toolCallId: string, toolName: string, head: string, output: SpilledOutput): void {
    if (this.disposed) {
      output.remove()
      return
    }
    this.entries.set(toolCallId, { toolName, length: head.length + output.chars, spill: { head, output } })
    this.adopted.push(output)
  }

  /** The full text, or undefined when this request did not truncate that call. */
  async get(toolCallId: string): Promise<string | undefined> {
    const entry = this.entries.get(toolCallId)
    if (!entry) return undefined
    if (entry.text !== undefined) return entry.text
    if (entry.spill) return `${entry.spill.head}${await entry.spill.output.text()}`
    return entry.file ? readFile(entry.file, "utf8") : undefined
  }

  /** True when some output lives on disk (for tests and logs). */
  get spilled(): boolean {
    return this.dir !== undefined
  }

  get spillDir(): string | undefined {
    return this.dir
  }

  async dispose(): Promise<void> {
    this.disposed = true
    this.entries.clear()
    for (const output of this.adopted.splice(0)) output.remove()
    this.inMemory = 0
    const dir = this.dir
    this.dir = undefined
    if (dir) await rm(dir, { recursive: true, force: true })
  }
}
