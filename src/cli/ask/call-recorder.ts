import type { ChatModel, Completion, CompletionRequest, ModelInfo, ToolCall } from "../../llm/types.ts"

/**
 * A pass-through model that remembers the tool calls of each completion. The stream's
 * `start_tool_calling` event carries only the tool name and call id, but the CLI shows the
 * arguments as the call starts; they are in the completion that asked for it.
 */
export class CallRecorder implements ChatModel {
  readonly #inner: ChatModel
  readonly #calls = new Map<string, ToolCall>()

  constructor(inner: ChatModel) {
    this.#inner = inner
  }

  get name(): string {
    return this.#inner.name
  }

  get info(): ModelInfo {
    return this.#inner.info
  }

  async complete(request: CompletionRequest, signal?: AbortSignal): Promise<Completion> {
    const completion = await this.#inner.complete(request, signal)
    for (const call of completion.toolCalls) this.#calls.set(call.id, call)
    return completion
  }

  call(id: string): ToolCall | undefined {
    return this.#calls.get(id)
  }

  /** Forgets recorded calls (a new conversation). */
  clear(): void {
    this.#calls.clear()
  }
}
