import { accessSync, constants } from "node:fs"
import {
  flag,
  intOption,
  listOption,
  type ParsedArgs,
  stringOption,
  UsageError,
} from "../../commands/args.ts"

export type AskOptions = {
  question: string | undefined
  configPath: string | undefined
  model: string | undefined
  files: string[]
  json: boolean
  yes: boolean
  noInteractive: boolean
  /** `--no-color`: raw markdown and no colour, as with NO_COLOR. */
  noColor: boolean
  maxSteps: number | undefined
  toolsetFiles: string[]
  bash: boolean
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
    question: question === "" ? undefined : question,
    configPath: stringOption(args, "config"),
    model: stringOption(args, "model"),
    files,
    json: flag(args, "json"),
    yes: flag(args, "yes"),
    noInteractive: flag(args, "no-interactive"),
    noColor: flag(args, "no-color"),
    maxSteps: intOption(args, "max-steps", 1, 10_000),
    toolsetFiles: listOption(args, "toolset-file"),
    bash: flag(args, "bash"),
  }
}
