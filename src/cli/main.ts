/**
 * The `dupin` command line (the executable entry is `src/main.ts`). This file stays small and imports nothing heavy: each command's module is
 * loaded only when that command runs, so `dupin version` never evaluates the server or the engine.
 */

import { parseArgs, UsageError } from "../commands/args.ts"
import { describeFailure } from "../commands/exit.ts"
import { writeStderr, writeStdout } from "../commands/output.ts"
import { log } from "../log.ts"
import { type CommandEntry, mainHelp } from "./commands.ts"

/** Runs one command line; resolves to the exit code. Failures are thrown to the caller. */
export async function main(argv: readonly string[], commands: Record<string, CommandEntry>): Promise<number> {
  const [first, ...rest] = argv
  if (first === undefined || first === "--help" || first === "-h") {
    await writeStdout(mainHelp(commands))
    return 0
  }
  if (first === "help") return main(rest.length > 0 ? [rest[0] as string, "--help"] : [], commands)
  if (first === "--version" || first === "-V") return main(["version"], commands)
  const entry = Object.hasOwn(commands, first) ? commands[first] : undefined
  if (!entry) {
    throw new UsageError(
      `unknown command "${first}". Commands: ${Object.keys(commands).join(", ")} (see: dupin --help)`,
    )
  }
  const args = parseArgs(rest, entry.options, first)
  if (args.help) {
    await writeStdout(entry.help)
    return 0
  }
  const run = await entry.load()
  return run(args)
}

/** Runs the process's command line and exits with its code; failures become one stderr line. */
export async function runMain(commands: Record<string, CommandEntry>): Promise<never> {
  let code: number
  try {
    code = await main(process.argv.slice(2), commands)
  } catch (error) {
    const failure = describeFailure(error)
    log.debug("command failed", {
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    })
    writeStderr(`${failure.line}\n`)
    code = failure.code
  }
  // Explicit exit: a finished command must not linger on an open stdin or a keep-alive socket.
  process.exit(code)
}
