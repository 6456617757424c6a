import { readFile } from "node:fs/promises"
import { basename } from "node:path"
import { ConfigError, errorMessage } from "../../errors.ts"
import type { ChatMessage, ContentPart } from "../../llm/types.ts"
import type { RunbookCatalog } from "../../runbook/catalog.ts"
import { PLANNING_TOOLSET } from "../../tool/core-names.ts"
import type { ToolExecutor } from "../../tool/executor.ts"
import { offeredToModel } from "../../tool/toolset-status.ts"
import { type AttachedFile, buildSystemPrompt, buildUserPrompt, userContent } from "./build.ts"
import { type PromptSection, resolveSections } from "./sections.ts"

/** Bytes of one attached file that reach the prompt. */
const MAX_FILE_BYTES = 1_000_000

export type InitialAskInput = {
  initialUserPrompt: string
  /** Files included as context (the `files` section). */
  filePaths?: string[]
  /** Already-read attachments (piped stdin, uploads). */
  files?: AttachedFile[]
  toolExecutor: ToolExecutor
  runbooks?: RunbookCatalog | undefined
  systemPromptAdditions?: string | undefined
  clusterName?: string | undefined
  /** Sections in force; defaults to all but `ai_safety`. */
  sections?: ReadonlySet<PromptSection>
  images?: ContentPart[]
  now?: Date
}

/**
 * The spec's `build_initial_ask_messages`: the system prompt and the user's question. Async
 * because it starts the prerequisite checks (lazily, once) and lists the toolsets that failed
 * them without a process (config, env); one still being checked is described as available.
 */
export async function buildInitialAskMessages(input: InitialAskInput): Promise<ChatMessage[]> {
  const sections = input.sections ?? resolveSections(undefined)
  await input.toolExecutor.startChecks()
  const files = [...(input.files ?? []), ...(await Promise.all((input.filePaths ?? []).map(readAttachment)))]
  const system = buildSystemPrompt({
    sections,
    toolsets: input.toolExecutor.toolsets,
    clusterName: input.clusterName,
    additions: [input.systemPromptAdditions],
  })
  return [{ role: "system", content: system }, buildUserMessage(input, sections, files)]
}

export function buildUserMessage(
  input: Pick<InitialAskInput, "initialUserPrompt" | "runbooks" | "images" | "now" | "toolExecutor">,
  sections: ReadonlySet<PromptSection>,
  files: AttachedFile[] = [],
): ChatMessage {
  const prompt = buildUserPrompt({
    ask: input.initialUserPrompt,
    sections,
    files,
    runbooks: input.runbooks?.promptText(),
    todoEnabled: input.toolExecutor.toolsets.some((t) => t.name === PLANNING_TOOLSET && offeredToModel(t)),
    ...(input.now ? { now: input.now } : {}),
  })
  return { role: "user", content: userContent(prompt, input.images ?? []) }
}

async function readAttachment(path: string): Promise<AttachedFile> {
  try {
    const bytes = await readFile(path)
    const cut = bytes.length > MAX_FILE_BYTES
    const content = new TextDecoder().decode(cut ? bytes.subarray(0, MAX_FILE_BYTES) : bytes)
    return { name: basename(path), content: cut ? `${content}\n[TRUNCATED]` : content }
  } catch (error) {
    throw new ConfigError(`Cannot read attached file ${path}: ${errorMessage(error)}`, path)
  }
}
