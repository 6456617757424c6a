import { AbortError, ConfigError, errorMessage, ModelError, RequestError } from "../errors.ts"
import { UsageError } from "./args.ts"

/** CONTRACT §2 exit codes; 130 is the shell's convention for "stopped by Ctrl+C". */
export const EXIT = { ok: 0, runtime: 1, usage: 2, interrupted: 130 } as const

/**
 * What the user sees when a command fails: one line naming what to fix, and the exit code. A
 * RequestError in the CLI means the user passed something the engine refuses (an unknown model
 * name), which is a usage problem, not a runtime failure.
 */
export function describeFailure(error: unknown): { code: number; line: string } {
  const message = oneLine(errorMessage(error))
  // A config with several errors lists them one per line, each naming file, key and form.
  if (error instanceof ConfigError) {
    const lines = errorMessage(error)
      .split("\n")
      .filter((line) => line.trim())
    return {
      code: EXIT.usage,
      line: (lines.length > 0 ? lines : [""]).map((l) => `dupin: ${oneLine(l)}`).join("\n"),
    }
  }
  if (error instanceof UsageError || error instanceof RequestError) {
    return { code: EXIT.usage, line: `dupin: ${message}` }
  }
  if (error instanceof AbortError) return { code: EXIT.interrupted, line: "dupin: interrupted" }
  if (error instanceof ModelError) {
    const tried = error.endpoint ? ` (tried ${error.endpoint})` : ""
    return { code: EXIT.runtime, line: `dupin: ${message}${tried}` }
  }
  // A bug or an unclassified fault: still one line; SVC_LOG_LEVEL=DEBUG shows the stack.
  return { code: EXIT.runtime, line: `dupin: unexpected error: ${message}` }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim() || "failed without a message"
}
