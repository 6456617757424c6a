import { log } from "../log.ts"
import type { Prerequisite, PrerequisiteContext, PrerequisiteOutcome } from "../tool/prerequisite.ts"
import { runProcess } from "../tool/spawn.ts"
import { firstProgram, shellArgv } from "./shell.ts"

/** Keeps a chatty `--version` from costing memory; only the first line is ever shown. */
const PREREQUISITE_OUTPUT_BYTES = 64 * 1024

/** Checks in flight or done, per round: one round shares one AbortSignal (ToolExecutor.ensureReady). */
const ROUNDS = new WeakMap<AbortSignal, Map<string, Promise<PrerequisiteOutcome>>>()

/**
 * A YAML `prerequisites: - command: ...` entry: the toolset is enabled only if the command exits 0
 * (and prints `expected_output`, when given). Messages name the fix ("kubectl not found on PATH").
 */
export class CommandPrerequisite implements Prerequisite {
  constructor(
    readonly command: string,
    readonly expectedOutput?: string,
    /** The toolset's declared variables (`env:`): `$NAME` in the check reads them as its tools do. */
    readonly passEnv: Readonly<Record<string, string>> = {},
  ) {}

  check(context: PrerequisiteContext): Promise<PrerequisiteOutcome> {
    // Several toolsets share a check (`kubectl version --client`): one run per check round.
    const round = ROUNDS.get(context.signal) ?? new Map<string, Promise<PrerequisiteOutcome>>()
    ROUNDS.set(context.signal, round)
    const key = `${this.command}\u0000${this.expectedOutput ?? ""}`
    const outcome = round.get(key) ?? this.#timed(context)
    round.set(key, outcome)
    return outcome
  }

  /** Each check's time and outcome at DEBUG: what an operator reads when a start feels slow. */
  async #timed(context: PrerequisiteContext): Promise<PrerequisiteOutcome> {
    const started = performance.now()
    const outcome = await this.#run(context)
    log.debug("prerequisite checked", {
      command: this.command,
      ms: Math.round(performance.now() - started),
      ok: outcome[0],
    })
    return outcome
  }

  async #run(context: PrerequisiteContext): Promise<PrerequisiteOutcome> {
    const program = firstProgram(this.command)
    if (program && !program.includes("/") && !Bun.which(program, { PATH: context.env.PATH ?? "" })) {
      return [false, `${program} not found on PATH`]
    }
    const env = { ...context.env, ...this.passEnv }
    const result = await runProcess({
      argv: shellArgv(this.command, env),
      env,
      timeoutMs: context.timeoutSeconds * 1000,
      signal: context.signal,
      maxOutputBytes: PREREQUISITE_OUTPUT_BYTES,
    })
    const firstLine = result.output.trim().split("\n", 1)[0] ?? ""
    if (result.timedOut) return [false, `\`${this.command}\` timed out after ${context.timeoutSeconds} s`]
    if (result.exitCode !== 0) {
      const status =
        result.exitCode === null ? `was killed by ${result.signalCode}` : `exited ${result.exitCode}`
      return [false, `\`${this.command}\` ${status}${firstLine ? `: ${firstLine}` : ""}`]
    }
    if (this.expectedOutput !== undefined && !result.output.includes(this.expectedOutput)) {
      return [
        false,
        `\`${this.command}\` did not print "${this.expectedOutput}"${firstLine ? `: ${firstLine}` : ""}`,
      ]
    }
    return [true, ""]
  }
}
