/** What a prerequisite check may use. */
export type PrerequisiteContext = {
  /** The toolset's validated config (`toolsets.<name>.config`). */
  config: Record<string, unknown>
  /** The explicit tool environment. */
  env: Record<string, string>
  signal: AbortSignal
  /** Seconds a single check may take. */
  timeoutSeconds: number
}

/** [ok, message]. The message explains a failure ("kubectl not found on PATH"). */
export type PrerequisiteOutcome = [boolean, string]

export interface Prerequisite {
  check(context: PrerequisiteContext): Promise<PrerequisiteOutcome>
}

/** The spec's `CallablePrerequisite`: a function of the toolset config, sync or async. */
export class CallablePrerequisite implements Prerequisite {
  readonly callable: (config: Record<string, unknown>) => PrerequisiteOutcome | Promise<PrerequisiteOutcome>
  constructor(init: { callable: CallablePrerequisite["callable"] }) {
    this.callable = init.callable
  }
  async check(context: PrerequisiteContext): Promise<PrerequisiteOutcome> {
    return await this.callable(context.config)
  }
}

/** Environment variables that must be set (in the tool environment). */
export class EnvPrerequisite implements Prerequisite {
  constructor(
    readonly env: string[],
    /** The variables the toolset is given from dupin's environment (its declared `env`). */
    readonly given: Readonly<Record<string, string>> = {},
  ) {}
  async check(context: PrerequisiteContext): Promise<PrerequisiteOutcome> {
    const missing = this.env.filter((name) => !this.given[name] && !context.env[name])
    return missing.length === 0
      ? [true, ""]
      : [false, `Environment variable ${missing.join(", ")} is not set.`]
  }
}

/** A fixed answer, e.g. a toolset that needs config it does not have. */
export class StaticPrerequisite implements Prerequisite {
  constructor(
    readonly enabled: boolean,
    readonly disabledReason = "",
  ) {}
  async check(): Promise<PrerequisiteOutcome> {
    return [this.enabled, this.disabledReason]
  }
}
