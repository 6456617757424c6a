import type { ApprovalCallback } from "../../agent/approval.ts"
import type { Metadata } from "../../agent/events.ts"
import type { AttachedFile } from "../../agent/prompt/build.ts"
import { buildInitialAskMessages, buildUserMessage } from "../../agent/prompt/messages.ts"
import { type PromptSection, resolveSections } from "../../agent/prompt/sections.ts"
import { type ChatResponseBody, chatResponseBody } from "../../agent/response-body.ts"
import type { ToolCallingLLM } from "../../agent/tool-calling-llm.ts"
import type { ChatMessage } from "../../llm/types.ts"
import type { Runtime } from "../../runtime/runtime.ts"
import type { Progress } from "./progress.ts"
import type { ToolOutputs } from "./tool-outputs.ts"

export type SessionInit = {
  runtime: Runtime
  llm: ToolCallingLLM
  progress: Progress
  approval: ApprovalCallback
  /** Context attached to every conversation's opening question (again after `/clear`). */
  attachments?: Attachments
  /** Keeps each tool's full output for `/show` and `/last`. */
  outputs?: ToolOutputs
}

export type Attachments = {
  /** `-f` files, read when a conversation starts. */
  filePaths?: readonly string[]
  /** Already-read attachments (piped stdin). */
  files?: readonly AttachedFile[]
}

/**
 * One `ask` conversation: the first question gets the full system prompt and attachments, each
 * follow-up is a new user message on the returned history. A run that fails or is interrupted
 * leaves the conversation as it was before that question.
 */
export class AskSession {
  readonly #init: SessionInit
  readonly #sections: ReadonlySet<PromptSection>
  #llm: ToolCallingLLM
  #history: ChatMessage[] | undefined
  #metadata: Metadata | undefined

  constructor(init: SessionInit) {
    this.#init = init
    this.#llm = init.llm
    this.#sections = resolveSections(init.runtime.config.enabledPrompts)
  }

  /** The metadata of the last answer (`/context`). */
  get metadata(): Metadata | undefined {
    return this.#metadata
  }

  get llm(): ToolCallingLLM {
    return this.#llm
  }

  /** `/model`: later questions go to `llm`; the conversation so far is kept. */
  useLlm(llm: ToolCallingLLM): void {
    this.#llm = llm
  }

  /** Starts over (`/clear`): the next question opens a new conversation. */
  clear(): void {
    this.#history = undefined
    this.#metadata = undefined
  }

  /** Runs one question to its answer; the body is what `POST /api/chat` returns (`ask --json`). */
  async ask(question: string, signal: AbortSignal): Promise<ChatResponseBody> {
    const { runtime, progress, outputs } = this.#init
    const { config } = runtime
    const llm = this.#llm
    const first = this.#history === undefined
    const messages = first
      ? await this.#opening(question)
      : [...(this.#history ?? []), this.#followUp(question)]
    const outcome = await llm.run(
      messages,
      {
        approvalCallback: this.#init.approval,
        signal,
        // CONTRACT §5: the configured actions on a first turn, none on later ones.
        followUpActions: first ? [...config.followUpActions] : [],
        onToolCall: (call) => progress.onToolCall(call),
        // Text deltas only when they can be shown (stdout is a terminal).
        streamText: progress.streamText,
      },
      (event) => {
        outputs?.record(event)
        progress.onEvent(event)
      },
    )
    // The same mapping as the HTTP API, so `ask --json` prints exactly its body.
    const body = chatResponseBody(outcome)
    this.#history = body.conversation_history
    this.#metadata = body.metadata
    return body
  }

  #opening(question: string): Promise<ChatMessage[]> {
    const { runtime, attachments } = this.#init
    const { config } = runtime
    const llm = this.#llm
    return buildInitialAskMessages({
      initialUserPrompt: question,
      filePaths: [...(attachments?.filePaths ?? [])],
      files: [...(attachments?.files ?? [])],
      toolExecutor: llm.toolExecutor,
      runbooks: runtime.runbooks,
      systemPromptAdditions: config.systemPromptAdditions,
      clusterName: config.clusterName,
      sections: this.#sections,
    })
  }

  #followUp(text: string): ChatMessage {
    const { runtime } = this.#init
    const llm = this.#llm
    return buildUserMessage(
      { initialUserPrompt: text, runbooks: runtime.runbooks, toolExecutor: llm.toolExecutor },
      this.#sections,
    )
  }
}
