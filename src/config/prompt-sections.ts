/**
 * The prompt section keys (spec "Prompt sections"): settings vocabulary, since `ENABLED_PROMPTS`
 * and `behavior_controls` name them and config rejects an unknown one at load. The agent's prompt
 * builder decides what each section says (agent/prompt/sections.ts).
 */
export const SYSTEM_SECTIONS = [
  "intro",
  "ask_user",
  "todowrite_instructions",
  "ai_safety",
  "toolset_instructions",
  "permission_errors",
  "general_instructions",
  "style_guide",
  "cluster_name",
  "system_prompt_additions",
] as const

export const USER_SECTIONS = ["files", "todowrite_reminder", "time_runbooks"] as const

export const PROMPT_SECTIONS = [...SYSTEM_SECTIONS, ...USER_SECTIONS] as const

export type PromptSection = (typeof PROMPT_SECTIONS)[number]

export function isPromptSection(key: string): key is PromptSection {
  return (PROMPT_SECTIONS as readonly string[]).includes(key)
}
