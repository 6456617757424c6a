import { ModelError } from "../errors.ts"
import type { TokenCounter } from "../llm/tokens.ts"
import type { ChatMessage, ChatModel, Usage, UserMessage } from "../llm/types.ts"
import { fence } from "../tool/fence.ts"
import {
  COMPACTION_REQUEST,
  COMPACTION_SYSTEM_PROMPT,
  renderTranscript,
  SUMMARY_HEADER,
  summaryOf,
} from "./compaction-prompt.ts"

/** Slack for our token counts being estimates for non-OpenAI tokenizers. */
const SAFETY_PCT = 5

export type Summary = { reply: string; usage: Usage }

/**
 * The compaction call: the same model, no tools, our prompt, and the conversation as a transcript
 * fitted to the window (large tool results cut to a fair share), leaving the output reserve free.
 */
export async function summarise(
  model: ChatModel,
  history: readonly ChatMessage[],
  counter: TokenCounter,
  signal: AbortSignal,
): Promise<Summary> {
  const { contextWindow, maxOutputTokens } = model.info
  const frame = counter.countText(COMPACTION_SYSTEM_PROMPT) + counter.countText(COMPACTION_REQUEST) + 64
  const budget = Math.floor(((contextWindow - maxOutputTokens) * (100 - SAFETY_PCT)) / 100) - frame
  const transcript = await renderTranscript(history, Math.max(256, budget), counter, signal)
  const completion = await model.complete(
    {
      messages: [
        { role: "system", content: COMPACTION_SYSTEM_PROMPT },
        { role: "user", content: `<conversation>\n${transcript}\n</conversation>\n\n${COMPACTION_REQUEST}` },
      ],
    },
    signal,
  )
  const reply = completion.content?.trim()
  if (!reply)
    throw new ModelError(
      "The model returned an empty reply to the history compaction request.",
      "invalid_response",
    )
  return { reply, usage: completion.usage }
}

export type CompactedParts = {
  /** The system message, the summary, and the latest user request (whichever exist). */
  base: ChatMessage[]
  /** The last complete tool round after the latest request (assistant tool_calls + results), or []. */
  round: ChatMessage[]
  summary: UserMessage
}

export function latestUserIndex(history: readonly ChatMessage[]): number {
  return history.findLastIndex((m) => m.role === "user")
}

/** Whether there is anything besides the system prompt and the latest request to summarise. */
export function compactable(history: readonly ChatMessage[]): boolean {
  const latest = latestUserIndex(history)
  return history.some((m, i) => i !== latest && m.role !== "system")
}

/**
 * The compacted history (CONTRACT §5): the system message, one user message holding the summary,
 * the latest user request verbatim. The latest turn's last tool round is offered separately so
 * the caller can keep it when it fits: a tool call and its results always travel together.
 */
export function compactedParts(history: readonly ChatMessage[], reply: string): CompactedParts {
  // Fenced like a tool result: a summariser that was talked into restating injected text as a
  // finding (or an order) must not turn it into plain user words in the new history.
  const summary: UserMessage = { role: "user", content: `${SUMMARY_HEADER}${fence(summaryOf(reply))}` }
  const base: ChatMessage[] = []
  const system = history[0]?.role === "system" ? history[0] : undefined
  if (system) base.push(system)
  base.push(summary)
  const latest = latestUserIndex(history)
  const request = history[latest]
  if (request) base.push(request)
  return { base, round: lastToolRound(history.slice(latest + 1)), summary }
}

/** The trailing assistant tool-call message and all its results, when the tail ends with exactly that. */
function lastToolRound(tail: readonly ChatMessage[]): ChatMessage[] {
  const start = tail.findLastIndex((m) => m.role === "assistant")
  const assistant = tail[start]
  if (assistant?.role !== "assistant" || !assistant.tool_calls?.length) return []
  const results = tail.slice(start + 1)
  const ids = new Set(assistant.tool_calls.map((c) => c.id))
  const answered = new Set(results.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])))
  const complete =
    results.every((m) => m.role === "tool" && ids.has(m.tool_call_id)) && answered.size === ids.size
  return complete ? [assistant, ...results] : []
}
