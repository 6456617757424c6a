/**
 * Config errors gathered across the toolset sources (config file, custom files, code toolsets'
 * overrides), so one run names every problem instead of the first (issue 12 item 11). Each
 * ConfigError may already hold several lines (one per key path); the total is capped like a
 * single file's report.
 */
import { MAX_REPORTED_ERRORS } from "../config/validate.ts"
import { ConfigError } from "../errors.ts"

export class ConfigProblems {
  readonly #errors: ConfigError[] = []

  add(error: ConfigError): void {
    this.#errors.push(error)
  }

  /** Runs `step`; a ConfigError is kept and undefined returned. Other errors pass through. */
  attempt<T>(step: () => T): T | undefined {
    try {
      return step()
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error
      this.add(error)
      return undefined
    }
  }

  /** Throws the one error, or one ConfigError listing all of them (capped, "and N more"). */
  throwIfAny(): void {
    const [first, ...rest] = this.#errors
    if (!first) return
    if (rest.length === 0) throw first
    const lines: string[] = []
    let hidden = 0 // counted, not listed, by an error's own cap
    for (const error of this.#errors) {
      for (const line of error.message.split("\n")) {
        const counted = /^and (\d+) more errors?$/.exec(line)
        if (counted) hidden += Number(counted[1])
        else lines.push(line)
      }
    }
    const shown = lines.slice(0, MAX_REPORTED_ERRORS)
    const more = lines.length - shown.length + hidden
    if (more > 0) shown.push(`and ${more} more error${more === 1 ? "" : "s"}`)
    throw new ConfigError(shown.join("\n"), first.path)
  }
}
