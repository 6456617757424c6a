import type { EngineEvent } from "../../agent/events.ts"
import type { ToolCall } from "../../llm/types.ts"
import { clip, formatCall, formatDuration, parseArguments } from "./format.ts"

export type ProgressOptions = {
  write: (text: string) => void
  now?: () => number
}

const MAX_ERROR = 160

/**
 * Live progress on stderr: each tool call as it starts and as it ends, with duration and status.
 * Lines are held while an approval prompt is open (tools of the same step keep finishing
 * meanwhile), so they never land in the middle of the question being asked.
 */
export class Progress {
  readonly #write: (text: string) => void
  /** Arguments of the calls the engine reported (onToolCall), by call id, for the start lines. */
  readonly #args = new Map<string, Record<string, unknown>>()
  readonly #now: () => number
  readonly #started = new Map<string, number>()
  #held: string[] | undefined

  constructor(options: ProgressOptions) {
    this.#write = options.write
    this.#now = options.now ?? (() => performance.now())
  }

  /** The engine's hook on each call as it starts: its arguments, which the events do not carry. */
  onToolCall(call: ToolCall): void {
    this.#args.set(call.id, parseArguments(call.function.arguments))
  }

  /** Renders one engine event; the final answer itself is the caller's to print. */
  onEvent(message: EngineEvent): void {
    switch (message.event) {
      case "start_tool_calling": {
        const { id, tool_name } = message.data
        this.#started.set(id, this.#now())
        const args = this.#args.get(id) ?? {}
        this.#args.delete(id)
        this.line(`▸ ${formatCall(tool_name, args)}`)
        return
      }
      case "tool_calling_result": {
        const { tool_call_id, name, result } = message.data
        const started = this.#started.get(tool_call_id)
        this.#started.delete(tool_call_id)
        const took = started === undefined ? "" : ` ${formatDuration(this.#now() - started)}`
        if (result.status === "error") {
          const why = result.error ?? (typeof result.data === "string" ? result.data : "error")
          this.line(`✗ ${name}${took} ${clip(why, MAX_ERROR)}`)
        } else if (result.status === "no_data") {
          this.line(`✓ ${name}${took} (no data)`)
        } else {
          this.line(`✓ ${name}${took}`)
        }
        return
      }
      case "ai_message":
        // The model's notes between tool steps: useful context, but not the answer.
        if (message.data.content?.trim()) this.line(`· ${clip(message.data.content, 400)}`)
        return
      case "conversation_history_compaction_start":
        this.line(`… compacting the conversation (${message.data.metadata.initial_tokens} tokens)`)
        return
      case "conversation_history_compacted":
        this.line(
          `✓ compacted ${message.data.metadata.initial_tokens} → ${message.data.metadata.compacted_tokens} tokens`,
        )
        return
      case "token_count":
      case "ai_message_delta":
      case "ai_answer_end":
      case "approval_required":
        return
      default: {
        const unknown: never = message
        throw new Error(`Unhandled event ${JSON.stringify(unknown)}`)
      }
    }
  }

  /** Restarts a call's clock (after an approval prompt). */
  restartClock(id: string): void {
    if (this.#started.has(id)) this.#started.set(id, this.#now())
  }

  line(text: string): void {
    if (this.#held) this.#held.push(text)
    else this.#write(`${text}\n`)
  }

  /** Holds progress lines until `release` (while a prompt waits for the user). */
  hold(): void {
    this.#held ??= []
  }

  release(): void {
    const held = this.#held ?? []
    this.#held = undefined
    for (const text of held) this.#write(`${text}\n`)
  }
}
