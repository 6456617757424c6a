import type { TokenCounter } from "../llm/tokens.ts"
import type { ToolMessage } from "../llm/types.ts"
import { Slicer } from "../offloop/yield.ts"
import type { SpilledOutput } from "../tool/spilled-output.ts"
import { countLines, countLinesSliced } from "./output-pager.ts"
import { READ_TOOL_OUTPUT } from "./read-tool-output.ts"
import type { Truncation } from "./report.ts"
import { MAX_CHARS_PER_TOKEN, mayCut, TRUNCATION_MARKER, truncateToBudget } from "./truncate.ts"

const NOTE_PREFIX = "[Output cut in line "

/**
 * What the model reads where its output stops: how to get the rest. `total` is the full output's
 * line count (the same counter as read_tool_output's, so both say one total), when it is known.
 */
export function pagingNote(toolCallId: string, total?: number): (kept: string) => string {
  return (kept) => {
    // The line the kept text stops in, where reading on starts: after a kept text ending in a
    // newline, that is the next line.
    const line = kept === "" || kept.endsWith("\n") ? countLines(kept) + 1 : countLines(kept)
    return (
      `${NOTE_PREFIX}${line}${total === undefined ? "" : ` of ${total}`}. The full output stays available until this request ends: ` +
      `call ${READ_TOOL_OUTPUT} with tool_call_id "${toolCallId}" and start_line ${line} to read on, or with a pattern to search it.]`
    )
  }
}

/**
 * A tool message as cut to its budget: the cut, and the whole content it left out, when there was
 * one: as text (`full`), or for a long output already on disk as the message's head and the file.
 */
export type CutMessage = {
  message: ToolMessage
  truncation?: Truncation
  full?: string
  spilled?: { head: string; output: SpilledOutput }
}

/**
 * The `tool` message for a result, cut to `budget` tokens when it is larger, with a note telling
 * the model how to page through the rest. No side effects: the whole content of a cut message comes
 * back as `full` (or `spilled`), for the caller to keep where `read_tool_output` finds it (an
 * `OutputStore`).
 */
export async function cutToolMessage(
  message: ToolMessage,
  toolName: string,
  budget: number,
  counter: TokenCounter,
  signal?: AbortSignal,
  spill?: SpilledOutput,
): Promise<CutMessage> {
  if (spill) {
    const spilled = await capSpilled(message, toolName, budget, counter, spill, new Slicer(signal))
    if (spilled) return spilled
  }
  const full = message.content
  const slicer = new Slicer(signal)
  // Counted only when a cut can happen: a pass over up to the spawn cap (10 MB).
  const total = mayCut(full, budget) ? await countLinesSliced(full, slicer) : undefined
  const outcome = await truncateToBudget(
    full,
    budget,
    counter,
    pagingNote(message.tool_call_id, total),
    slicer,
  )
  if (!outcome.cut) return { message }
  return {
    message: { ...message, content: outcome.content },
    truncation: {
      tool_call_id: message.tool_call_id,
      start_index: 0,
      end_index: outcome.cut.endIndex,
      tool_name: toolName,
      original_token_count: outcome.cut.originalTokenCount,
    },
    full,
  }
}

/**
 * A message whose output is the start of a long output on disk (tool/spilled-output.ts): always
 * cut (the rest is not in the message); the caller's store pages the message's head followed by the
 * whole output, so line numbers agree with the note. Undefined when the output's start is not
 * found in the message as written (then only what the message holds can be paged).
 */
async function capSpilled(
  message: ToolMessage,
  toolName: string,
  budget: number,
  counter: TokenCounter,
  spill: SpilledOutput,
  slicer: Slicer,
): Promise<CutMessage | undefined> {
  const content = message.content
  const at = spill.start ? content.indexOf(spill.start) : -1
  if (at === -1) return undefined
  const head = content.slice(0, at)
  const total = countLines(head) + spill.lines
  // Cut even when the start alone fits a large budget: at most a character-per-token bound of it.
  const room = Math.max(1, Math.min(budget, Math.floor(content.length / MAX_CHARS_PER_TOKEN)))
  const outcome = await truncateToBudget(
    content,
    room,
    counter,
    pagingNote(message.tool_call_id, total),
    slicer,
  )
  if (!outcome.cut) return undefined
  const whole = head.length + spill.chars
  return {
    message: { ...message, content: outcome.content },
    truncation: {
      tool_call_id: message.tool_call_id,
      start_index: 0,
      end_index: outcome.cut.endIndex,
      tool_name: toolName,
      original_token_count: Math.ceil((outcome.cut.originalTokenCount * whole) / Math.max(1, content.length)),
    },
    spilled: { head, output: spill },
  }
}

/** A tool message's content without the marker and paging note we added (an earlier cut). */
export function withoutTruncationSuffix(content: string): string {
  if (!content.endsWith(`\n${TRUNCATION_MARKER}`)) return content
  const body = content.slice(0, -(TRUNCATION_MARKER.length + 1))
  const note = body.lastIndexOf(`\n${NOTE_PREFIX}`)
  return note !== -1 && body.endsWith("]") ? body.slice(0, note) : body
}
