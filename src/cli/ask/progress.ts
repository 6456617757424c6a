import type { EngineEvent } from "../../agent/events.ts"
import { terminalSafe } from "../../commands/output.ts"
import type { ToolCall } from "../../llm/types.ts"
import { LiveArea } from "../render/live-area.ts"
import { type Style, style } from "../render/style.ts"
import { PLAIN_TERMINAL, type TerminalFacts } from "../render/terminal.ts"
import type { AnswerView } from "./answer-view.ts"
import { clip, formatDuration, parseArguments } from "./format.ts"
import { callLabel, finishedLine, todoChecklist } from "./tool-lines.ts"

export type ProgressOptions = {
  /** stderr, raw: Progress makes every untrusted part terminal-safe itself. */
  write: (text: string) => void
  now?: () => number
  /** What the terminal can show; without it, plain lines (a pipe). */
  facts?: TerminalFacts
  /** Where streamed answer text goes (stdout). */
  answer?: AnswerView
}

/** The live area's entry for the model call in flight. */
const THINKING = "\u0000model"

/**
 * Live progress on stderr. On a terminal: a spinner with elapsed time while the model thinks and
 * one per running tool call, updated in place, and a ✓/✗ line per finished call; elsewhere plain
 * lines as calls start and end. Lines are held while an approval prompt is open (tools of the
 * same step keep finishing meanwhile), so they never land in the middle of the question.
 */
export class Progress {
  readonly #write: (text: string) => void
  readonly #now: () => number
  readonly #style: Style
  readonly #live: LiveArea | undefined
  readonly #answer: AnswerView | undefined
  /** Arguments of the calls the engine reported (onToolCall), by call id. */
  readonly #params = new Map<string, Record<string, unknown>>()
  readonly #labels = new Map<string, string>()
  readonly #started = new Map<string, number>()
  #held: string[] | undefined
  #streaming = false
  /** Labels of this run's finished calls, for the truncation note that follows their step. */
  readonly #done = new Map<string, string>()
  /** Truncations already told, by call id. */
  readonly #toldCut = new Set<string>()

  constructor(options: ProgressOptions) {
    const facts = options.facts ?? PLAIN_TERMINAL
    this.#write = options.write
    this.#now = options.now ?? (() => performance.now())
    this.#style = style(facts.color)
    this.#answer = options.answer
    this.#live = facts.live
      ? new LiveArea({ write: options.write, columns: facts.columns, style: this.#style, now: this.#now })
      : undefined
  }

  /** Whether the run should stream the model's text (it is shown only on a terminal). */
  get streamText(): boolean {
    return this.#answer?.streams ?? false
  }

  get style(): Style {
    return this.#style
  }

  /** A run starts: the model is thinking. */
  begin(): void {
    this.#done.clear()
    this.#toldCut.clear()
    this.#live?.stop()
    this.#streaming = false
    this.#live?.set(THINKING, "Thinking")
  }

  /**
   * The run is over (answered, failed or stopped): the live area goes away. A call still running
   * was stopped with the run (Ctrl+C, a failure): it gets a line saying so, instead of vanishing
   * with its spinner or leaving a frame of it.
   */
  end(): void {
    const now = this.#now()
    const stopped = [...this.#labels].map(([id, label]) => {
      const started = this.#started.get(id)
      return `${this.#style.dim("■")} ${label} ${this.#style.dim(`stopped${started === undefined ? "" : ` after ${formatDuration(now - started)}`}`)}`
    })
    for (const map of [this.#started, this.#params, this.#labels]) map.clear()
    this.#live?.stop()
    this.#streaming = false
    if (this.#held) this.release()
    for (const line of stopped) this.line(line)
  }

  /** The engine's hook on each call as it starts: its arguments, which the events do not carry. */
  onToolCall(call: ToolCall): void {
    this.#params.set(call.id, parseArguments(call.function.arguments))
  }

  /** Renders one engine event; the final answer itself is the caller's to print. */
  onEvent(message: EngineEvent): void {
    switch (message.event) {
      case "ai_message_delta":
        if (!this.#streaming) {
          this.#streaming = true
          this.#live?.pause()
        }
        this.#answer?.push(message.data.content)
        return
      case "start_tool_calling": {
        const { id, tool_name } = message.data
        this.#started.set(id, this.#now())
        const label = terminalSafe(callLabel(tool_name, this.#params.get(id) ?? {}))
        this.#labels.set(id, label)
        if (this.#live) {
          this.#live.delete(THINKING)
          this.#live.set(id, label)
        } else this.line(`▸ ${label}`)
        return
      }
      case "tool_calling_result": {
        this.#finished(message.data)
        return
      }
      case "ai_message":
        // The model's notes between tool steps: useful context, but not the answer.
        if (this.#streaming) {
          this.#streaming = false
          this.#answer?.discard()
          this.#live?.resume()
        }
        if (message.data.content?.trim())
          this.line(this.#style.dim(`· ${terminalSafe(clip(message.data.content, 400))}`))
        return
      case "conversation_history_compaction_start":
        this.line(`… compacting the conversation (${message.data.metadata.initial_tokens} tokens)`)
        return
      case "conversation_history_compacted":
        this.line(
          `${this.#style.green("✓")} compacted ${message.data.metadata.initial_tokens} → ${message.data.metadata.compacted_tokens} tokens`,
        )
        return
      case "ai_answer_end":
      case "approval_required":
        this.end()
        return
      case "token_count":
        this.#tellTruncations(message.data.metadata.truncations ?? [])
        return
      default: {
        const unknown: never = message
        throw new Error(`Unhandled event ${JSON.stringify(unknown)}`)
      }
    }
  }

  #finished(data: Extract<EngineEvent, { event: "tool_calling_result" }>["data"]): void {
    const { tool_call_id: id, name, result } = data
    const started = this.#started.get(id)
    const params = this.#params.get(id) ?? result.params
    const label = this.#labels.get(id) ?? terminalSafe(callLabel(name, params))
    for (const map of [this.#started, this.#params, this.#labels]) map.delete(id)
    this.#done.set(id, label)
    const took = started === undefined ? "" : formatDuration(this.#now() - started)
    const safe = { ...result, error: result.error === null ? null : terminalSafe(result.error) }
    if (typeof safe.data === "string") safe.data = terminalSafe(safe.data)
    this.#live?.delete(id)
    const plan = result.status === "success" ? todoChecklist(name, params, this.#style) : undefined
    this.line(finishedLine(label, took, safe, this.#style) + (plan ? `\n${plan}` : ""))
    // The last call of the step is done: the model has the results and thinks again.
    if (this.#live && this.#live.othersThan(THINKING) === 0 && result.status !== "approval_required")
      this.#live.set(THINKING, "Thinking")
  }

  /**
   * The context cap cuts a result after its ✓ line was printed (the step's results are fitted to
   * the window together): the cut is told right below, once, naming the call.
   */
  #tellTruncations(truncations: ReadonlyArray<{ tool_call_id: string; original_token_count: number }>): void {
    for (const cut of truncations) {
      if (this.#toldCut.has(cut.tool_call_id)) continue
      this.#toldCut.add(cut.tool_call_id)
      const label = this.#done.get(cut.tool_call_id)
      if (!label) continue
      this.line(
        `  ${this.#style.yellow("✂")} ${label} ${this.#style.dim(`output truncated for the model (about ${cut.original_token_count} tokens); /show pages all of it`)}`,
      )
    }
  }

  /** Restarts a call's clock (after an approval prompt). */
  restartClock(id: string): void {
    if (this.#started.has(id)) this.#started.set(id, this.#now())
  }

  /** A finished line above the live area; `text` must be terminal-safe. */
  line(text: string): void {
    if (this.#held) this.#held.push(text)
    else if (this.#live) this.#live.print(`${text}\n`)
    else this.#write(`${text}\n`)
  }

  /** A side remark (a warning): one dim line. */
  note(text: string): void {
    this.line(this.#style.dim(terminalSafe(text)))
  }

  /** Holds progress lines until `release` (while a prompt waits for the user). */
  hold(): void {
    if (this.#held) return
    this.#held = []
    this.#live?.pause()
  }

  release(): void {
    const held = this.#held ?? []
    this.#held = undefined
    this.#live?.resume()
    for (const text of held) this.line(text)
  }
}
