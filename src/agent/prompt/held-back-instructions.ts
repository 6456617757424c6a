import type { ChatMessage } from "../../llm/types.ts"
import type { Toolset } from "../../tool/toolset.ts"
import { offeredToModel } from "../../tool/toolset-status.ts"
import { heldBackToolsetBlock, toolsetBlock } from "./build.ts"

/**
 * Matches the system prompt's toolset instructions to what a run sends, once at its start: a
 * toolset whose tools are all held back (deferred tools on a small window) keeps only its heading,
 * and one that had been cut that way gets its instructions back once a tool of it is sent up front
 * (a follow-up after it was used). Only blocks as buildSystemPrompt wrote them are touched, so a
 * system prompt written by a library caller stays as it is. Returns the instructions now missing
 * from the prompt, by toolset, for search_tools to hand out with the tools it loads.
 */
export function fitToolsetInstructions(
  history: ChatMessage[],
  toolsets: readonly Toolset[],
  heldBack: ReadonlySet<string>,
): Map<string, string> {
  const missing = new Map<string, string>()
  const system = history[0]
  if (system?.role !== "system" || typeof system.content !== "string") return missing
  let content = system.content
  for (const t of toolsets) {
    const instructions = t.llmInstructions?.trim()
    if (!offeredToModel(t) || !instructions) continue
    const full = toolsetBlock(t)
    const short = heldBackToolsetBlock(t)
    if (heldBack.has(t.name)) content = replaceBlock(content, full, short)
    else content = replaceBlock(content, short, full)
    if (hasBlock(content, short)) missing.set(t.name, instructions)
  }
  if (content !== system.content) history[0] = { ...system, content }
  return missing
}

/** A block is whole when it is followed by the end of the prompt or a new line. */
function hasBlock(content: string, block: string): boolean {
  return blockAt(content, block) >= 0
}

function blockAt(content: string, block: string): number {
  let at = content.indexOf(block)
  while (at >= 0) {
    const next = content[at + block.length]
    if (next === undefined || next === "\n") return at
    at = content.indexOf(block, at + 1)
  }
  return -1
}

function replaceBlock(content: string, from: string, to: string): string {
  const at = blockAt(content, from)
  return at < 0 ? content : content.slice(0, at) + to + content.slice(at + from.length)
}
