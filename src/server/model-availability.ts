/**
 * Which configured models can be called, in words for API clients: the missing variable, never
 * the server's file paths (a config path tells a client about the host, and is no use to it).
 */
import type { Config } from "../config/config.ts"
import { ConfigError, RequestError } from "../errors.ts"

export type ModelAvailability =
  | { name: string; callable: true }
  | { name: string; callable: false; reason: string; variable?: string }

/** Every model name with whether it can be called (`GET /api/model`). */
export function modelAvailability(config: Config): ModelAvailability[] {
  return config.modelNames().map((name) => {
    const problem = config.modelProblem(name)
    return problem ? unavailable(name, problem, config.configFile) : { name, callable: true }
  })
}

/**
 * The model a chat asked for, or a 400 naming what the server lacks when it cannot be called
 * (its key variable unset): the caller chose it and can choose another.
 */
export function requestedModelProblem(config: Config, name: string): RequestError | undefined {
  if (!config.modelNames().includes(name)) return undefined
  const problem = config.modelProblem(name)
  if (!problem) return undefined
  const state = unavailable(name, problem, config.configFile)
  if (state.callable) return undefined
  const others = modelAvailability(config)
    .filter((m) => m.callable)
    .map((m) => m.name)
  return new RequestError(
    `Model "${name}" cannot be called on this server: ${state.reason}` +
      (others.length > 0 ? ` Models that can: ${others.join(", ")}.` : ""),
  )
}

/** A ConfigError from building the default model, without the config file's path in it. */
export function withoutConfigPath(error: ConfigError, configFile: string | undefined): ConfigError {
  return configFile ? new ConfigError(stripPath(error.message, configFile), error.path) : error
}

function unavailable(name: string, problem: string, configFile: string | undefined): ModelAvailability {
  const variable = /\b([A-Z_][A-Z0-9_]*) is not set\b|\bset ([A-Z_][A-Z0-9_]*)\b/.exec(problem)
  const name_ = variable?.[1] ?? variable?.[2]
  const reason = name_
    ? `its key variable ${name_} is not set in the server's environment.`
    : stripPath(problem, configFile)
  return { name, callable: false, reason, ...(name_ ? { variable: name_ } : {}) }
}

function stripPath(message: string, configFile: string | undefined): string {
  return configFile
    ? message.replaceAll(`${configFile}: `, "").replaceAll(configFile, "the config file")
    : message
}
