import type { TokenCounter } from "../llm/tokens.ts"
import type { ToolMessage } from "../llm/types.ts"
import { Slicer } from "../offloop/yield.ts"
import { countLines, countLinesSliced } from "./output-pager.ts"
import { READ_TOOL_OUTPUT } from "./read-tool-output.ts"
import type { Truncation } from "./report.ts"
import { mayCut, TRUNCATION_MARKER, truncateToBudget } from "./truncate.ts"

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

/** A tool message as cut to its budget: the cut, and the whole content it left out, when there was one. */
export type CutMessage = { message: ToolMessage; truncation?: Truncation; full?: string }

/**
 * The `tool` message for a result, cut to `budget` tokens when it is larger, with a note telling
 * the model how to page through the rest. No side effects: the whole content of a cut message comes
 * back as `full`, for the caller to keep where `read_tool_output` finds it (an `OutputStore`).
 */
export async function cutToolMessage(
  message: ToolMessage,
  toolName: string,
  budget: number,
  counter: TokenCounter,
  signal?: AbortSignal,
): Promise<CutMessage> {
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

/** A tool message's content without the marker and paging note we added (an earlier cut). */
export function withoutTruncationSuffix(content: string): string {
  if (!content.endsWith(`\n${TRUNCATION_MARKER}`)) return content
  const body = content.slice(0, -(TRUNCATION_MARKER.length + 1))
  const note = body.lastIndexOf(`\n${NOTE_PREFIX}`)
  return note !== -1 && body.endsWith("]") ? body.slice(0, note) : body
}
