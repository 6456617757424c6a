/**
 * The shell YAML commands run in: bash (HolmesGPT's templates assume it), or /bin/sh on a host
 * without bash (minimal containers), looked up on the tool environment's PATH.
 */
export function shellArgv(script: string, env: Record<string, string>): string[] {
  const path = env.PATH ?? ""
  let shell = shells.get(path)
  if (shell === undefined) {
    shell = Bun.which("bash", { PATH: path }) ?? "/bin/sh"
    // Every YAML tool call asked again: ~1 % of the server's CPU under load (bench server-load).
    if (shells.size < 64) shells.set(path, shell)
  }
  return [shell, "-c", script]
}

/** The shell per tool PATH; a PATH names the same bash for the life of the process. */
const shells = new Map<string, string>()

/** The program a shell command line starts, skipping `VAR=value` prefixes; undefined if unclear. */
export function firstProgram(command: string): string | undefined {
  for (const word of command.trim().split(/\s+/)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue
    return /^[A-Za-z0-9_./+-]+$/.test(word) ? word : undefined
  }
  return undefined
}
