import type { EngineEvent } from "../../agent/events.ts"
import { OutputStore } from "../../context/output-store.ts"
import { formatCall } from "./format.ts"

type Call = { name: string; call: string; status: string; chars: number }

/**
 * Every tool result of this `ask` session, numbered in the order they finished, for `/show N`
 * and `/last`. The text lives in an OutputStore (memory up to its cap, then 0600 spill files),
 * so a long session of large outputs stays bounded in memory.
 */
export class ToolOutputs {
  readonly #store = new OutputStore()
  readonly #calls: Call[] = []

  record(event: EngineEvent): void {
    if (event.event !== "tool_calling_result") return
    const { name, result } = event.data
    const text = resultText(result.data, result.error)
    this.#calls.push({
      name,
      call: formatCall(name, result.params ?? {}),
      status: result.status,
      chars: text.length,
    })
    this.#store.put(String(this.#calls.length), name, text)
  }

  get count(): number {
    return this.#calls.length
  }

  /** The numbered list `/show` prints without a number. */
  list(): string {
    if (this.#calls.length === 0) return "No tool has run in this session yet.\n"
    const lines = this.#calls.map(
      (c, i) =>
        `  ${String(i + 1).padStart(3)}  ${c.status === "error" ? "✗" : "✓"} ${c.call}  (${c.chars.toLocaleString("en-US")} chars)`,
    )
    return `Tool outputs of this session (/show N prints one):\n${lines.join("\n")}\n`
  }

  /** The full output of call `n` (1-based) with a header line, or undefined when there is none. */
  async show(n: number): Promise<string | undefined> {
    const call = this.#calls[n - 1]
    if (!call) return undefined
    const text = (await this.#store.get(String(n))) ?? ""
    return `# ${n}: ${call.call} (${call.status})\n${text}${text.endsWith("\n") ? "" : "\n"}`
  }

  dispose(): Promise<void> {
    return this.#store.dispose()
  }
}

function resultText(data: unknown, error: string | null): string {
  const body =
    data === undefined || data === null ? "" : typeof data === "string" ? data : JSON.stringify(data, null, 2)
  return error ? `${error}${body ? `\n${body}` : ""}` : body
}
