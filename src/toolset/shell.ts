/**
 * The shell YAML commands run in: bash (HolmesGPT's templates assume it), or /bin/sh on a host
 * without bash (minimal containers), looked up on the tool environment's PATH.
 */
export function shellArgv(script: string, env: Record<string, string>): string[] {
  const bash = Bun.which("bash", { PATH: env.PATH ?? "" })
  return [bash ?? "/bin/sh", "-c", script]
}

/** The program a shell command line starts, skipping `VAR=value` prefixes; undefined if unclear. */
export function firstProgram(command: string): string | undefined {
  for (const word of command.trim().split(/\s+/)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue
    return /^[A-Za-z0-9_./+-]+$/.test(word) ? word : undefined
  }
  return undefined
}
