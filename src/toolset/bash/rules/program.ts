import { type OptionSpec, type ScannedOption, scanOptions } from "../options.ts"
import { allow, approve, type Verdict, worst } from "../verdict.ts"

/**
 * A program that runs without approval is described by its grammar: every option it accepts
 * (spelled as in the program's own getopt string, so dupin resolves abbreviations and attached
 * values the way it does), the options among them that need a human, and the shape of its
 * operands. Anything outside the grammar needs approval.
 */
export type ProgramRule = {
  options: OptionSpec
  /** Options the program has that need a human, with why. They are in `options` too, so a prefix resolves as in the program. */
  ask?: Record<string, string>
  /** Checks the operands (default: files to read, whose paths the policy has already vetted). */
  operands?: (operands: readonly string[], scanned: Scanned) => Verdict | undefined
  /** Extra checks over the whole scan. */
  check?: (scanned: Scanned) => Verdict | undefined
}

export type Scanned = { options: ScannedOption[]; operands: string[] }

/**
 * An option grammar written like the program's source: `short` is a getopt string (`n:` takes a
 * value, `I::` an optional attached one), `long` lists names (`lines=` takes a value, `color?`
 * an optional `=value`). GNU getopt_long accepts unambiguous prefixes of long names.
 */
export function getopt(
  short: string,
  long: readonly string[] = [],
  extra: Partial<OptionSpec> = {},
): OptionSpec {
  let shortFlag = ""
  let shortValue = ""
  let shortOptional = ""
  for (let i = 0; i < short.length; i++) {
    const c = short[i]!
    if (short[i + 1] === ":" && short[i + 2] === ":") {
      shortOptional += c
      i += 2
    } else if (short[i + 1] === ":") {
      shortValue += c
      i++
    } else shortFlag += c
  }
  const longFlag: string[] = []
  const longValue: string[] = []
  const longOptional: string[] = []
  for (const name of long) {
    if (name.endsWith("=")) longValue.push(`--${name.slice(0, -1)}`)
    else if (name.endsWith("?")) longOptional.push(`--${name.slice(0, -1)}`)
    else longFlag.push(`--${name}`)
  }
  return {
    abbreviations: true,
    shortFlag,
    shortValue,
    shortOptional,
    longFlag,
    longValue,
    longOptional,
    ...extra,
  }
}

export function classifyByRule(name: string, args: readonly string[], rule: ProgramRule): Verdict {
  const scan = scanOptions(args, rule.options)
  if (!scan.ok) return approve(`${name}: ${scan.reason}`)
  for (const option of scan.options) {
    const reason = rule.ask?.[option.name]
    if (reason) return approve(`${name} ${option.name} ${reason}`)
  }
  const scanned = { options: scan.options, operands: scan.operands }
  return worst(allow(`${name} only reads`), rule.operands?.(scan.operands, scanned), rule.check?.(scanned))
}

/** Operands: none at all (the program would set something with them). */
export const noOperands =
  (what: string) =>
  (operands: readonly string[]): Verdict | undefined =>
    operands.length > 0 ? approve(`${what} (${operands[0]})`) : undefined

/** Operands: each must have `shape`. */
export const operandsLike =
  (shape: RegExp, what: string) =>
  (operands: readonly string[]): Verdict | undefined => {
    const odd = operands.find((o) => !shape.test(o))
    return odd === undefined ? undefined : approve(`${what} (${odd})`)
  }
