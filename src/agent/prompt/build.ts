import type { ContentPart } from "../../llm/types.ts"
import { PLANNING_TOOLSET } from "../../tool/core-names.ts"
import type { Toolset } from "../../tool/toolset.ts"
import { offeredToModel } from "../../tool/toolset-status.ts"
import type { PromptSection } from "./sections.ts"
import * as text from "./text.ts"

export type SystemPromptInput = {
  sections: ReadonlySet<PromptSection>
  toolsets: readonly Toolset[]
  clusterName?: string | undefined
  /** `system_prompt_additions` from config plus a request's `additional_system_prompt`. */
  additions?: Array<string | undefined>
}

/** The system prompt; empty when no system section is enabled (spec: `ENABLED_PROMPTS=none`). */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const on = (s: PromptSection) => input.sections.has(s)
  const parts: string[] = []
  if (on("intro")) parts.push(text.INTRO)
  if (on("ask_user")) parts.push(text.ASK_USER)
  if (
    on("todowrite_instructions") &&
    input.toolsets.some((t) => offeredToModel(t) && t.name === PLANNING_TOOLSET)
  ) {
    parts.push(text.TODOWRITE_INSTRUCTIONS)
  }
  if (on("ai_safety")) parts.push(text.AI_SAFETY)
  if (on("toolset_instructions")) parts.push(toolsetInstructions(input.toolsets))
  if (on("permission_errors")) parts.push(text.PERMISSION_ERRORS)
  if (on("general_instructions")) parts.push(text.GENERAL_INSTRUCTIONS)
  if (on("style_guide")) parts.push(text.STYLE_GUIDE)
  if (on("cluster_name") && input.clusterName) parts.push(text.clusterNameText(input.clusterName))
  if (on("system_prompt_additions")) {
    for (const extra of input.additions ?? []) if (extra?.trim()) parts.push(extra.trim())
  }
  return parts.filter(Boolean).join("\n\n")
}

/** Enabled toolsets' own instructions, and the unavailable ones with why, so the model can tell the user. */
function toolsetInstructions(toolsets: readonly Toolset[]): string {
  const enabled = toolsets.filter(offeredToModel)
  const lines: string[] = ["# Toolsets"]
  for (const t of enabled) lines.push(toolsetBlock(t))
  const off = toolsets.filter((t) => !offeredToModel(t))
  if (off.length > 0) {
    lines.push(
      "## Unavailable toolsets",
      "These toolsets are not available. If one would help, tell the user how to enable it.",
    )
    for (const t of off) {
      const why = t.error ?? "disabled in configuration"
      lines.push(`- ${t.name}: ${why}${t.docsUrl ? ` (see ${t.docsUrl})` : ""}`)
    }
  } else if (enabled.length === 0) {
    lines.push("No tools are available; answer from the question alone and say so.")
  }
  return lines.join("\n")
}

const toolsetHeading = (t: Toolset) => `## ${t.name}${t.description ? `: ${t.description}` : ""}`

/** One enabled toolset in the `toolset_instructions` section: its heading and its instructions. */
export function toolsetBlock(t: Toolset): string {
  const instructions = t.llmInstructions?.trim()
  return instructions ? `${toolsetHeading(t)}\n${instructions}` : toolsetHeading(t)
}

/**
 * The block of a toolset whose tools a run holds back (small windows, see deferred-tools.ts): the
 * heading only; search_tools returns the instructions with the first of its tools it loads.
 */
export function heldBackToolsetBlock(t: Toolset): string {
  return `${toolsetHeading(t)} (tools not loaded yet: search_tools loads them with this toolset's instructions)`
}

export type AttachedFile = { name: string; content: string }

export type UserPromptInput = {
  ask: string
  sections: ReadonlySet<PromptSection>
  files?: readonly AttachedFile[]
  /** Runbook catalog text for the `time_runbooks` section. */
  runbooks?: string | undefined
  now?: Date
  todoEnabled?: boolean
}

/** The user message: attached files, then time and runbooks, then the question itself. */
export function buildUserPrompt(input: UserPromptInput): string {
  const on = (s: PromptSection) => input.sections.has(s)
  const parts: string[] = []
  if (on("files")) {
    for (const file of input.files ?? []) {
      parts.push(`<attached_file name=${JSON.stringify(file.name)}>\n${file.content}\n</attached_file>`)
    }
  }
  if (on("time_runbooks")) {
    parts.push(`Current time: ${(input.now ?? new Date()).toISOString()}`)
    if (input.runbooks) parts.push(input.runbooks)
  }
  if (on("todowrite_reminder") && input.todoEnabled) parts.push(text.TODOWRITE_REMINDER)
  if (parts.length === 0) return input.ask
  return `${parts.join("\n\n")}\n\n${input.ask}`
}

/** The user content with images appended as content parts. */
export function userContent(prompt: string, images: ContentPart[]): string | ContentPart[] {
  if (images.length === 0) return prompt
  return [{ type: "text", text: prompt }, ...images]
}
