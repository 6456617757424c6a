import { accessSync, constants } from "node:fs"
import {
  flag,
  intOption,
  listOption,
  type ParsedArgs,
  stringOption,
  UsageError,
} from "../../commands/args.ts"

/** The flags of every terminal command that runs the engine (`ask`, `investigate`). */
export type EngineFlags = {
  configPath: string | undefined
  model: string | undefined
  json: boolean
  /** `--no-color`: raw markdown and no colour, as with NO_COLOR. */
  noColor: boolean
  maxSteps: number | undefined
  toolsetFiles: string[]
  bash: boolean
}

export type AskOptions = EngineFlags & {
  question: string | undefined
  files: string[]
  yes: boolean
  noInteractive: boolean
}

export function engineFlags(args: ParsedArgs): EngineFlags {
  return {
    configPath: stringOption(args, "config"),
    model: stringOption(args, "model"),
    json: flag(args, "json"),
    noColor: flag(args, "no-color"),
    maxSteps: intOption(args, "max-steps", 1, 10_000),
    toolsetFiles: listOption(args, "toolset-file"),
    bash: flag(args, "bash"),
  }
}

/** `dupin ask` flags. Words after the options form the question, so quotes are optional. */
export function askOptions(args: ParsedArgs): AskOptions {
  const question = args.positionals.join(" ").trim()
  const files = listOption(args, "file")
  for (const path of [...files, ...listOption(args, "toolset-file")]) {
    try {
      accessSync(path, constants.R_OK)
    } catch {
      throw new UsageError(`cannot read ${path}: no such file, or not readable`)
    }
  }
  return {
    ...engineFlags(args),
    question: question === "" ? undefined : question,
    files,
    yes: flag(args, "yes"),
    noInteractive: flag(args, "no-interactive"),
  }
}
