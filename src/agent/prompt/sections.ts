/**
 * Prompt sections (spec "Prompt sections"). Precedence, highest first (spec rule 6):
 * `ENABLED_PROMPTS` restricts, then `behavior_controls`, then the defaults (all on but ai_safety).
 */
import { PROMPT_SECTIONS, type PromptSection } from "../../config/prompt-sections.ts"

export {
  isPromptSection,
  PROMPT_SECTIONS,
  type PromptSection,
  SYSTEM_SECTIONS,
  USER_SECTIONS,
} from "../../config/prompt-sections.ts"

const OFF_BY_DEFAULT: ReadonlySet<PromptSection> = new Set(["ai_safety"])

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
