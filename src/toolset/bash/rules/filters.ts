import { hasOption, type OptionSpec, type Scan, scanOptions } from "../options.ts"
import { allow, approve, type Verdict, worst } from "../verdict.ts"
import { awkProgramVerdict } from "./awk-program.ts"
import { jqFilterVerdict } from "./jq-filter.ts"
import { sedScriptProblem } from "./sed-script.ts"

/**
 * Text filters are allowed only as filters: they read the pipe, never a file the model names.
 * `grep pass /etc/shadow`, `head ~/.kube/config`, `jq . kubeconfig` would turn a harmless filter
 * into a file reader, so any file operand or file-reading option needs approval (and credential
 * paths are refused before this runs).
 */
type FilterRule = {
  spec: OptionSpec
  /** Options whose value is a file the program reads or writes, or a directory it walks. */
  fileOptions?: string[]
  /** Options that need approval for another reason, with that reason. */
  approveOptions?: Record<string, string>
  /** Leading operands that are not files (grep's pattern, tr's sets). */
  dataOperands?: (scan: Extract<Scan, { ok: true }>) => number
  /** Extra checks of the program text (sed script, awk program). */
  check?: (scan: Extract<Scan, { ok: true }>) => Verdict | undefined
}

const GNU = { abbreviations: true }

const GREP: FilterRule = {
  spec: {
    ...GNU,
    numericShort: true,
    shortValue: "efmABCdD",
    shortFlag: "EFGPiyvwxclLoqsbHhnTZzUaIVrR",
    longValue: [
      "regexp",
      "file",
      "max-count",
      "after-context",
      "before-context",
      "context",
      "directories",
      "devices",
      "label",
      "include",
      "exclude",
      "exclude-from",
      "exclude-dir",
      "binary-files",
      "group-separator",
    ],
    longFlag: [
      "extended-regexp",
      "fixed-strings",
      "basic-regexp",
      "perl-regexp",
      "ignore-case",
      "no-ignore-case",
      "invert-match",
      "word-regexp",
      "line-regexp",
      "count",
      "files-with-matches",
      "files-without-match",
      "only-matching",
      "quiet",
      "silent",
      "no-messages",
      "byte-offset",
      "with-filename",
      "no-filename",
      "line-number",
      "initial-tab",
      "null",
      "null-data",
      "text",
      "binary",
      "line-buffered",
      "no-group-separator",
      "version",
      "help",
      "recursive",
      "dereference-recursive",
    ],
    longOptional: ["color", "colour"],
  },
  // -r with no file searches the working directory.
  fileOptions: [
    "-f",
    "--file",
    "--exclude-from",
    "-r",
    "-R",
    "--recursive",
    "--dereference-recursive",
    "-d",
    "--directories",
  ],
  dataOperands: (scan) => (hasOption(scan.options, "-e", "--regexp", "-f", "--file") ? 0 : 1),
}

const SED: FilterRule = {
  spec: {
    ...GNU,
    shortValue: "efl",
    shortFlag: "nErzsu",
    longValue: ["expression", "file", "line-length"],
    longFlag: [
      "quiet",
      "silent",
      "regexp-extended",
      "separate",
      "unbuffered",
      "null-data",
      "posix",
      "debug",
      "sandbox",
      "follow-symlinks",
      "help",
      "version",
    ],
  },
  fileOptions: ["-f", "--file"],
  dataOperands: (scan) => (hasOption(scan.options, "-e", "--expression", "-f", "--file") ? 0 : 1),
  check: (scan) => {
    const scripts = scan.options
      .filter((o) => o.name === "-e" || o.name === "--expression")
      .map((o) => o.value ?? "")
    if (scripts.length === 0 && scan.operands[0] !== undefined) scripts.push(scan.operands[0])
    const problem = sedScriptProblem(scripts.join("\n"))
    return problem ? approve(`sed script has ${problem}`) : undefined
  },
}

const AWK: FilterRule = {
  spec: { ...GNU, stopAtOperand: true, shortValue: "Fv", longValue: ["field-separator", "assign"] },
  dataOperands: () => 1,
  check: (scan) => {
    const program = scan.operands[0]
    if (program === undefined)
      return approve("awk without a program on the command line reads one from a file")
    return awkProgramVerdict(program)
  },
}

const simple = (spec: OptionSpec, extra: Omit<FilterRule, "spec"> = {}): FilterRule => ({
  spec: { ...GNU, ...spec },
  ...extra,
})

const FILTERS: Record<string, FilterRule> = {
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  sed: SED,
  awk: AWK,
  gawk: AWK,
  mawk: AWK,
  head: simple({
    numericShort: true,
    shortValue: "nc",
    shortFlag: "qvz",
    longValue: ["lines", "bytes"],
    longFlag: ["quiet", "silent", "verbose", "zero-terminated"],
  }),
  tail: simple({
    numericShort: true,
    shortValue: "ncs",
    shortFlag: "qvzfF",
    longValue: ["lines", "bytes", "sleep-interval", "max-unchanged-stats"],
    longFlag: ["quiet", "silent", "verbose", "zero-terminated", "retry"],
    longOptional: ["follow"],
  }),
  sort: simple(
    {
      shortValue: "ktSTo",
      shortFlag: "bdfgiMhnRrVcCsuzm",
      longValue: [
        "key",
        "field-separator",
        "buffer-size",
        "temporary-directory",
        "output",
        "parallel",
        "sort",
        "random-source",
        "files0-from",
        "batch-size",
        "compress-program",
      ],
      longFlag: [
        "ignore-leading-blanks",
        "dictionary-order",
        "ignore-case",
        "general-numeric-sort",
        "ignore-nonprinting",
        "month-sort",
        "human-numeric-sort",
        "numeric-sort",
        "random-sort",
        "reverse",
        "version-sort",
        "stable",
        "unique",
        "zero-terminated",
        "merge",
        "debug",
      ],
      longOptional: ["check"],
    },
    {
      // -o writes a file, -T writes temporary files there, --compress-program runs a program.
      fileOptions: ["-o", "--output", "-T", "--temporary-directory", "--random-source", "--files0-from"],
      approveOptions: { "--compress-program": "sort --compress-program runs a program" },
    },
  ),
  // `uniq IN OUT` writes OUT: every operand counts as a file.
  uniq: simple({
    shortValue: "fsw",
    shortFlag: "cdDiuz",
    longValue: ["skip-fields", "skip-chars", "check-chars"],
    longFlag: ["count", "repeated", "unique", "ignore-case", "zero-terminated"],
    longOptional: ["all-repeated", "group"],
  }),
  wc: simple(
    {
      shortFlag: "clmwL",
      longFlag: ["bytes", "chars", "lines", "words", "max-line-length"],
      longValue: ["files0-from", "total"],
    },
    { fileOptions: ["--files0-from"] },
  ),
  cut: simple({
    shortValue: "bcfd",
    shortFlag: "snz",
    longValue: ["bytes", "characters", "fields", "delimiter", "output-delimiter"],
    longFlag: ["only-delimited", "complement", "zero-terminated"],
  }),
  // tr never takes files: its operands are character sets.
  tr: simple(
    { shortFlag: "cdstC", longFlag: ["complement", "delete", "squeeze-repeats", "truncate-set1"] },
    { dataOperands: () => 2 },
  ),
  base64: simple({
    shortValue: "w",
    shortFlag: "di",
    longValue: ["wrap"],
    longFlag: ["decode", "ignore-garbage"],
  }),
  tac: simple({ shortValue: "s", shortFlag: "br", longValue: ["separator"], longFlag: ["before", "regex"] }),
  rev: simple({}),
}

export function isFilter(name: string): boolean {
  return Object.hasOwn(FILTERS, name)
}

export function classifyFilter(name: string, args: readonly string[]): Verdict {
  const rule = FILTERS[name]
  if (!rule) return approve(`${name} is not a known filter`)
  const scan = scanOptions(args, rule.spec)
  if (!scan.ok) return approve(`${name}: ${scan.reason}`)
  const fileOption = scan.options.find((o) => rule.fileOptions?.includes(o.name))
  if (fileOption)
    return approve(`${name} ${fileOption.name} reads or writes files; filters may only read the pipe`)
  for (const [option, reason] of Object.entries(rule.approveOptions ?? {})) {
    if (hasOption(scan.options, option)) return approve(reason)
  }
  const files = scan.operands.slice(rule.dataOperands?.(scan) ?? 0).filter((f) => f !== "-")
  if (files.length > 0) return approve(`${name} reads ${files.join(", ")}; filters may only read the pipe`)
  return worst(allow(`${name} reading the pipe`), rule.check?.(scan))
}

/** jq has its own option syntax (`--arg NAME VALUE` takes two words), so it gets its own scanner. */
export function classifyJq(args: readonly string[]): Verdict {
  const flags = new Set("rjcnseSaCMRhV0")
  const oneValue = new Set(["--indent"])
  const twoValues = new Set(["--arg", "--argjson"])
  const longFlags = new Set([
    "--raw-output",
    "--join-output",
    "--compact-output",
    "--null-input",
    "--slurp",
    "--exit-status",
    "--sort-keys",
    "--ascii-output",
    "--color-output",
    "--monochrome-output",
    "--raw-input",
    "--tab",
    "--seq",
    "--stream",
    "--stream-errors",
    "--raw-output0",
    "--help",
    "--version",
    "--unbuffered",
  ])
  const operands: string[] = []
  let restAreArgs = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith("-") || arg === "-") {
      // After --args/--jsonargs, positionals past the program are values, not files.
      if (!(restAreArgs && operands.length > 0)) operands.push(arg)
      continue
    }
    if (arg === "--args" || arg === "--jsonargs") {
      restAreArgs = true
      continue
    }
    if (twoValues.has(arg)) {
      i += 2
      continue
    }
    if (oneValue.has(arg)) {
      i += 1
      continue
    }
    if (longFlags.has(arg)) continue
    if (/^-[^-]+$/.test(arg) && [...arg.slice(1)].every((c) => flags.has(c))) continue
    // --rawfile, --slurpfile, --argfile, -f/--from-file and -L all read files.
    return approve(`jq ${arg} is not known to be safe (it may read files)`)
  }
  const [program, ...files] = operands
  if (program === undefined) return approve("jq without a program")
  if (files.some((f) => f !== "-"))
    return worst(
      approve(`jq reads ${files.join(", ")}; filters may only read the pipe`),
      jqFilterVerdict(program),
    )
  return worst(allow("jq reading the pipe"), jqFilterVerdict(program))
}
