/**
 * A getopt-style scanner, so the policy sees options the way the program will: `-n5`, `-rn`,
 * `--lines=5`, `--lines 5`, GNU long-option abbreviations (`--fil=x` is `--file=x`), `--`.
 * Anything it does not know fails closed: an unknown option could be one that writes, executes or
 * reads a file.
 */
export type OptionSpec = {
  /** Short options that take a value (`-n 5`, `-n5`). */
  shortValue?: string
  /** Short options without a value; they may be grouped (`-rn`). */
  shortFlag?: string
  longValue?: string[]
  longFlag?: string[]
  /** Long options whose value is optional and only attached with `=` (`--in-place=.bak`). */
  longOptional?: string[]
  /** `-20` means `-n 20` (head, tail). */
  numericShort?: boolean
  /** GNU getopt_long accepts any unambiguous prefix of a long option. */
  abbreviations?: boolean
  /** Options end at the first operand (POSIX, awk); otherwise GNU permutation applies. */
  stopAtOperand?: boolean
  /** Short options whose value is optional and only attached (`date -Ihours`, `-b-1`). */
  shortOptional?: string
  /**
   * Options whose optional value may also be the next word when it has this shape
   * (`journalctl -b -1`, `-n 20`): the program decides by looking at the word, so must dupin.
   */
  optionalNext?: Record<string, RegExp>
  /** Go pflag: `-n=x` means `-n x`, and `_` and `-` are the same in long names (kubectl). */
  pflag?: boolean
}

export type ScannedOption = { name: string; value: string | undefined }

export type Scan = { ok: true; options: ScannedOption[]; operands: string[] } | { ok: false; reason: string }

export function scanOptions(args: readonly string[], spec: OptionSpec): Scan {
  const options: ScannedOption[] = []
  const operands: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      operands.push(...args.slice(i + 1))
      break
    }
    if (arg === "-" || !arg.startsWith("-")) {
      if (spec.stopAtOperand) {
        operands.push(...args.slice(i))
        break
      }
      operands.push(arg)
      continue
    }
    if (arg.startsWith("--")) {
      const long = matchLong(spec.pflag ? arg.replace(/_/g, "-") : arg, spec)
      if (!long.ok) return long
      const next = spec.optionalNext?.[long.name]
      if (next && long.value === undefined && i + 1 < args.length && next.test(args[i + 1]!)) {
        options.push({ name: long.name, value: args[++i] })
      } else if (long.takesValue && long.value === undefined) {
        if (i + 1 >= args.length) return { ok: false, reason: `option ${long.name} needs a value` }
        options.push({ name: long.name, value: args[++i] })
      } else {
        options.push({ name: long.name, value: long.value })
      }
      continue
    }
    if (spec.numericShort && /^-\d+$/.test(arg)) {
      options.push({ name: "-n", value: arg.slice(1) })
      continue
    }
    for (let j = 1; j < arg.length; j++) {
      const c = arg[j]!
      if (spec.shortOptional?.includes(c)) {
        const attached = arg.slice(j + 1)
        const next = spec.optionalNext?.[`-${c}`]
        if (!attached && next && i + 1 < args.length && next.test(args[i + 1]!))
          options.push({ name: `-${c}`, value: args[++i] })
        else options.push({ name: `-${c}`, value: attached || undefined })
        break
      }
      if (spec.shortValue?.includes(c)) {
        const raw = arg.slice(j + 1)
        const attached = spec.pflag && raw.startsWith("=") ? raw.slice(1) : raw
        if (attached) options.push({ name: `-${c}`, value: attached })
        else if (i + 1 < args.length) options.push({ name: `-${c}`, value: args[++i] })
        else return { ok: false, reason: `option -${c} needs a value` }
        break
      }
      if (!spec.shortFlag?.includes(c)) return { ok: false, reason: `option -${c} is not known to be safe` }
      options.push({ name: `-${c}`, value: undefined })
    }
  }
  return { ok: true, options, operands }
}

type LongMatch =
  | { ok: true; name: string; value: string | undefined; takesValue: boolean }
  | { ok: false; reason: string }

function matchLong(arg: string, spec: OptionSpec): LongMatch {
  const eq = arg.indexOf("=")
  const given = eq === -1 ? arg : arg.slice(0, eq)
  const value = eq === -1 ? undefined : arg.slice(eq + 1)
  const kinds: Array<[string[] | undefined, "value" | "flag" | "optional"]> = [
    [spec.longValue, "value"],
    [spec.longFlag, "flag"],
    [spec.longOptional, "optional"],
  ]
  const all = kinds.flatMap(([names, kind]) => (names ?? []).map((name) => ({ name, kind })))
  const exact = all.find((o) => o.name === given)
  const candidates = exact ? [exact] : spec.abbreviations ? all.filter((o) => o.name.startsWith(given)) : []
  if (candidates.length !== 1) return { ok: false, reason: `option ${given} is not known to be safe` }
  const { name, kind } = candidates[0]!
  // pflag booleans also take `--flag=true|false`.
  const isBool = spec.pflag && value !== undefined && /^(true|false)$/.test(value)
  if (kind === "flag" && value !== undefined && !isBool)
    return { ok: false, reason: `option ${name} takes no value` }
  return { ok: true, name, value, takesValue: kind === "value" }
}

/** The value of the last occurrence of any of `names`. */
export function optionValue(options: readonly ScannedOption[], ...names: string[]): string | undefined {
  return options.findLast((o) => names.includes(o.name))?.value
}

export function hasOption(options: readonly ScannedOption[], ...names: string[]): boolean {
  return options.some((o) => names.includes(o.name))
}
