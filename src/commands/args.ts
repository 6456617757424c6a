/**
 * A small argument parser. Hand-written rather than `util.parseArgs` so every mistake comes back as
 * one line that names the option and the command's `--help`, and so repeatable options (`-f`) and
 * `--flag=value` behave the same everywhere.
 */

import { closestKey } from "../config/did-you-mean.ts"

/** The user typed something the command does not accept. Exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "UsageError"
  }
}

export type OptionSpec = {
  type: "string" | "boolean"
  /** One-letter alias, without the dash. */
  short?: string
  /** May be given more than once; the values are collected in order. */
  multiple?: boolean
}

export type OptionSpecs = Record<string, OptionSpec>

export type ParsedArgs = {
  /** Option values by long name: string, string[] (multiple), or true (boolean). */
  values: Record<string, string | string[] | true>
  positionals: string[]
  help: boolean
}

/** Parses `argv` (after the command name) for `command`, whose options are `specs`. */
export function parseArgs(argv: readonly string[], specs: OptionSpecs, command: string): ParsedArgs {
  const values: ParsedArgs["values"] = {}
  const positionals: string[] = []
  let help = false
  const byShort = new Map(
    Object.entries(specs).flatMap(([name, s]) => (s.short ? [[s.short, name] as const] : [])),
  )
  const fail = (message: string): never => {
    throw new UsageError(`${message} (see: dupin ${command} --help)`)
  }

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (arg === "--help" || arg === "-h") {
      help = true
      continue
    }
    // A lone "-" is a positional by convention (stdin); anything else starting with "-" is an option.
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    const rawName = arg.startsWith("--") ? arg.slice(2, eq === -1 ? undefined : eq) : arg.slice(1, 2)
    const name = arg.startsWith("--") ? rawName : byShort.get(rawName)
    const spec = name === undefined ? undefined : specs[name]
    if (name === undefined || spec === undefined) {
      const guess = arg.startsWith("--") ? closestKey(rawName, Object.keys(specs)) : undefined
      const hint = guess === undefined ? "" : `: did you mean --${guess}?`
      return fail(`unknown option ${arg.split("=")[0]} for dupin ${command}${hint}`)
    }

    // Inline value: `--port=8080` or `-fFILE`.
    const inline = arg.startsWith("--")
      ? eq === -1
        ? undefined
        : arg.slice(eq + 1)
      : arg.length > 2
        ? arg.slice(2)
        : undefined
    if (spec.type === "boolean") {
      if (inline !== undefined) return fail(`--${name} takes no value`)
      values[name] = true
      continue
    }
    let value = inline
    if (value === undefined) {
      const next = argv[i + 1]
      // A negative number is a value (its range check names the bounds), not an option.
      const option = next?.startsWith("-") && next !== "-" && !/^-\d/.test(next)
      if (next === undefined || option) return fail(`--${name} needs a value`)
      value = next
      i++
    }
    if (spec.multiple) {
      const previous = values[name]
      values[name] = Array.isArray(previous) ? [...previous, value] : [value]
    } else if (values[name] !== undefined) {
      return fail(`--${name} given twice`)
    } else {
      values[name] = value
    }
  }
  return { values, positionals, help }
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name]
  return typeof v === "string" ? v : undefined
}

export function listOption(args: ParsedArgs, name: string): string[] {
  const v = args.values[name]
  return Array.isArray(v) ? v : []
}

export function flag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true
}

/** An integer option within bounds, or a usage error naming the option and the accepted range. */
export function intOption(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const raw = stringOption(args, name)
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, not "${raw}"`)
  }
  return n
}

/** Refuses positional arguments for commands that take none. */
export function noPositionals(args: ParsedArgs, command: string): void {
  if (args.positionals.length > 0) {
    throw new UsageError(
      `unexpected argument "${args.positionals[0]}" for dupin ${command} (see: dupin ${command} --help)`,
    )
  }
}
