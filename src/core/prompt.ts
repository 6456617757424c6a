/** Public entry point `dupin/core/prompt`. */
export type { AttachedFile } from "../agent/prompt/build.ts"
export { buildInitialAskMessages, type InitialAskInput } from "../agent/prompt/messages.ts"
export { PROMPT_SECTIONS, type PromptSection, resolveSections } from "../agent/prompt/sections.ts"
