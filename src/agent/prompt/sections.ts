/**
 * Prompt sections (spec "Prompt sections"). Precedence, highest first (spec rule 6):
 * `ENABLED_PROMPTS` restricts, then `behavior_controls`, then the defaults (all on but ai_safety).
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

const OFF_BY_DEFAULT: ReadonlySet<PromptSection> = new Set(["ai_safety"])

export function isPromptSection(key: string): key is PromptSection {
  return (PROMPT_SECTIONS as readonly string[]).includes(key)
}

/**
 * The sections in force for one request. `allowed` is the server-wide restriction parsed from
 * `ENABLED_PROMPTS` (undefined = no restriction); the API can switch sections within it but never
 * re-enable one it excludes.
 */
export function resolveSections(
  allowed: ReadonlySet<PromptSection> | undefined,
  controls: Partial<Record<string, boolean>> = {},
): Set<PromptSection> {
  const on = new Set<PromptSection>()
  for (const section of PROMPT_SECTIONS) {
    if (allowed && !allowed.has(section)) continue
    if (controls[section] ?? !OFF_BY_DEFAULT.has(section)) on.add(section)
  }
  return on
}
