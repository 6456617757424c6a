import { type OptionSpec, type ScannedOption, scanOptions } from "../options.ts"
import { allow, approve, type Verdict, worst } from "../verdict.ts"

/**
 * One record per program the policy knows (registry.ts collects them from the family files). The
 * record says how the program's own arguments are judged, by a getopt grammar (`options`, `ask`,
 * `operands`, `check`) or by a grammar of its own (`classify`), and what kind of program it is
 * (its traits: reads files, writes, runs a command or a script, …), from which the policy's
 * other checks (hard deny, wrappers, piped input) read what they need. A program without a
 * record, or whose record judges nothing, needs approval.
 */
export type ProgramRule = {
  /** Every option the program accepts, spelled as in its own getopt string (see `getopt`). */
  options?: OptionSpec
  /** Options the program has that need a human, with why. They are in `options` too, so a prefix resolves as in the program. */
  ask?: Record<string, string>
  /** Checks the operands (default: files to read, whose paths the policy has already vetted). */
  operands?: (operands: readonly string[], scanned: Scanned) => Verdict | undefined
  /** Extra checks over the whole scan (a sed script, an awk program). */
  check?: (scanned: Scanned) => Verdict | undefined
  /** A grammar of its own (kubectl, find, ps, jq…): the verdict for its arguments, instead of `options`. */
  classify?: (args: readonly string[], context: RuleContext) => Verdict
  /**
   * What it prints: "files", what is in the files it is given (xargs feeding it names may feed it
   * a credential's); "nothing" but its arguments (echo).
   */
  reads?: "files" | "nothing"
  /** It prints its arguments as text ("arguments", echo) or as a format ("format", printf): a shell it pipes to runs that text. */
  prints?: "arguments" | "format"
  /** It writes the files its arguments name: always (cp, tee), or for these arguments (`sed -i`, `kubectl cp`). */
  writes?: true | ((args: readonly string[]) => boolean)
  /** Options whose value is a file it writes (a trace, a log, a dump). */
  outputOptions?: readonly string[]
  /** Files it writes that its program text or its operands' positions name (sed `w FILE`, `uniq IN OUT`). */
  writesNamed?: (args: readonly string[]) => string[]
  /** How it may run its input as commands (`sed e`, awk `system($0)`), or undefined. */
  runsInput?: (args: readonly string[]) => string | undefined
  /** It runs another command given in its arguments: by this grammar, or "opaque" when dupin does not model it. */
  wraps?: Wrapper | "opaque"
  /** It runs a shell script (`sh -c`, or one read from its input), or code the policy cannot see (python). */
  runs?: "script" | "code"
  /** The script a shell runs from its arguments (`-c`); undefined when it reads one from a file or its input. */
  scriptArgument?: (args: readonly string[]) => string | undefined
  /** Naming a block device is not reading it: the program only looks at its metadata (`df /dev/sda1`). */
  deviceMetadata?: true
  /** Its first word is a subcommand: input appended to it alone (`xargs kubectl`) would choose it. */
  inputChoosesSubcommand?: true
  /** `--kubeconfig FILE` points it at a cluster without printing the file. */
  kubeconfigFlag?: true
  /**
   * It prints `what` (the environment, every shell variable), refused even with approval; only
   * when every argument matches `when`, if given.
   */
  dumps?: { what: string; when?: RegExp }
  /** Its forms refused even with approval, after the protected paths (`rm -r`). */
  refuse?: (args: readonly string[]) => Verdict | undefined
  /** Its own sandbox, asked for by `--sandbox` when the installed program is this flavour. */
  safeMode?: "GNU sed" | "GNU Awk"
  /** Command lines and the verdict each gets, run by test/toolset/bash/rule-examples.test.ts. */
  examples: Examples
}

export type Examples = { allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[] }

/** What a rule's own grammar may ask of the policy: the verdict of a command the program runs. */
export type RuleContext = {
  /** The directory the command runs in. */
  cwd: string
  /** The verdict for `name args…` running `inner` (`kubectl run … -- CMD`, `pidstat -e CMD`). */
  wrapped: (inner: Inner) => Verdict
}

export type Scanned = { options: ScannedOption[]; operands: string[] }

/**
 * What a wrapper runs inside:
 * - `argv`: the inner argv; `appendable`: the input adds arguments to it (xargs); `placeholder`:
 *   the input replaces this string wherever it stands (`xargs -I{}`).
 * - `script`: a shell script, as `sh -c` would run it.
 * - `none`: nothing (or only an interactive shell).
 * - `unknown`: the options could not be read: any suffix of the arguments, or any one argument as
 *   a script, may be the command.
 */
export type Inner =
  | { kind: "argv"; argv: string[]; appendable?: boolean; placeholder?: string }
  | { kind: "script"; script: string }
  | { kind: "none" }
  | { kind: "unknown"; args: readonly string[] }

/** A wrapper's grammar: its options, then where the command it runs starts. */
export type Wrapper = {
  options: OptionSpec
  /** Operands before the command (timeout's duration, chroot's new root, flock's lock file). */
  leading?: number
  /** The inner command from the scan; default: the operands after `leading`. */
  inner?: (operands: string[], options: ScannedOption[]) => Inner
}

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

/** A Go pflag grammar part (cobra): shorthands grouped, long flags exact, `-n=x`, `_` for `-`. */
export type Pflags = {
  short?: string
  shortValue?: string
  long?: readonly string[]
  longValue?: readonly string[]
}

/** The grammar of a cobra command made of parts (global flags, a subcommand's flags). */
export function pflag(...parts: Pflags[]): OptionSpec {
  const dashed = (names: readonly string[] | undefined) => (names ?? []).map((n) => `--${n}`)
  return {
    pflag: true,
    shortFlag: parts.map((p) => p.short ?? "").join(""),
    shortValue: parts.map((p) => p.shortValue ?? "").join(""),
    longFlag: parts.flatMap((p) => dashed(p.long)),
    longValue: parts.flatMap((p) => dashed(p.longValue)),
  }
}

/** The verdict of a getopt grammar: anything outside it, or an option in `ask`, needs approval. */
export function classifyByRule(name: string, args: readonly string[], rule: ProgramRule): Verdict {
  if (!rule.options) return approve(`${name} is not on the read-only allowlist`)
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

/** The same traits on every record of a family (`reads: "files"` on every host program). */
export function withTraits(
  rules: Record<string, ProgramRule>,
  traits: Partial<ProgramRule>,
): Record<string, ProgramRule> {
  return Object.fromEntries(Object.entries(rules).map(([name, rule]) => [name, { ...traits, ...rule }]))
}
