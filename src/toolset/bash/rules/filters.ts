import { posix } from "node:path"
import { hasOption, type OptionSpec, type Scan, scanOptions } from "../options.ts"
import { allow, approve, type Verdict, worst } from "../verdict.ts"
import { awkProgramVerdict } from "./awk-program.ts"
import { jqFilterVerdict } from "./jq-filter.ts"
import { sedScriptProblem } from "./sed-script.ts"

/**
 * Text filters and readers. Reading a file the model names is a read: the policy has already
 * refused every argument naming a credential (resolved as the kernel resolves it). What asks is
 * what is not a plain read: options that take a program, patterns or names from a file, walk
 * whole trees (credentials below cannot be vetted), write a file or run a program.
 */
type FilterRule = {
  spec: OptionSpec
  /** Options that read their program or patterns from a file, write one, or walk a tree. */
  fileOptions?: string[]
  /** Options that need approval for another reason, with that reason. */
  approveOptions?: Record<string, string>
  /** Leading operands that are not files (grep's pattern, tr's sets). */
  dataOperands?: (scan: Extract<Scan, { ok: true }>) => number
  /** How many file operands the program only reads (`uniq IN OUT` writes OUT). */
  maxFiles?: number
  /** Extra checks of the program text (sed script, awk program). */
  check?: (scan: Extract<Scan, { ok: true }>) => Verdict | undefined
}

const GNU = { abbreviations: true }

/** Long names are written bare in the tables below; the scanner matches them with their dashes. */
function dashed(spec: OptionSpec): OptionSpec {
  const add = (names: string[] | undefined) => names?.map((n) => (n.startsWith("--") ? n : `--${n}`))
  return {
    ...spec,
    longValue: add(spec.longValue),
    longFlag: add(spec.longFlag),
    longOptional: add(spec.longOptional),
  }
}

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
    shortOptional: "i",
    longValue: ["expression", "file", "line-length"],
    longOptional: ["in-place"],
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
  approveOptions: {
    "-i": "sed -i edits files in place",
    "--in-place": "sed --in-place edits files in place",
  },
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
  spec: {
    ...GNU,
    stopAtOperand: true,
    shortValue: "Fv",
    longValue: ["field-separator", "assign"],
    longFlag: ["sandbox"],
  },
  dataOperands: () => 1,
  check: (scan) => {
    const program = scan.operands[0]
    if (program === undefined)
      return approve("awk without a program on the command line reads one from a file")
    const special = scan.operands.slice(1).find(isGawkSpecialFile)
    if (special !== undefined)
      return approve(
        `gawk opens ${special} as a special file (a network connection or an inherited descriptor)`,
      )
    return awkProgramVerdict(program)
  },
}

/**
 * gawk's special file names (manual, "Special Files"): `/inet/tcp/LPORT/HOST/RPORT` (and `/inet4`,
 * `/inet6`, `udp`) listens on or connects to any port, past the egress guard, even with
 * `--sandbox` (finding R16); `/dev/fd/N` and `/dev/std*` read descriptors dupin did not hand over.
 * gawk compares the name as written; the normalized form is checked too, in case a version does not.
 */
function isGawkSpecialFile(operand: string): boolean {
  return [operand, posix.normalize(operand)].some((name) =>
    /^\/(inet[46]?(\/|$)|dev\/(fd\/|stdin$|stdout$|stderr$))/.test(name),
  )
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
  // `uniq IN OUT` writes OUT.
  uniq: simple(
    {
      shortValue: "fsw",
      shortFlag: "cdDiuz",
      longValue: ["skip-fields", "skip-chars", "check-chars"],
      longFlag: ["count", "repeated", "unique", "ignore-case", "zero-terminated"],
      longOptional: ["all-repeated", "group"],
    },
    { maxFiles: 1 },
  ),
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
    { dataOperands: () => 2, maxFiles: 0 },
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

/**
 * Whether `sed`/`sort` would write the files it names (`sed -i`, `--in-pl`, `sort -o`), read by
 * the same grammar as the verdict. An unreadable option line counts as writing.
 */
export function writesFiles(name: string, args: readonly string[]): boolean {
  if (name !== "sed" && name !== "sort") return false
  const scan = scanOptions(args, dashed(FILTERS[name]!.spec))
  if (!scan.ok) return true
  return name === "sed"
    ? hasOption(scan.options, "-i", "--in-place")
    : hasOption(scan.options, "-o", "--output")
}

/**
 * The program texts of a sed or awk command line (sed's `-e` values or first operand, awk's
 * program operand), read by the same grammar as the verdict; every argument when unreadable.
 */
export function programTexts(name: string, args: readonly string[]): readonly string[] {
  const rule = FILTERS[name === "gsed" ? "sed" : name === "nawk" ? "awk" : name]
  if (!rule || (rule !== SED && rule !== AWK)) return []
  const scan = scanOptions(args, dashed(rule.spec))
  if (!scan.ok) return args
  const scripts = scan.options
    .filter((o) => o.name === "-e" || o.name === "--expression")
    .map((o) => o.value ?? "")
  return scripts.length > 0 && rule === SED ? scripts : scan.operands.slice(0, 1)
}

export function isFilter(name: string): boolean {
  return Object.hasOwn(FILTERS, name)
}

export function classifyFilter(name: string, args: readonly string[]): Verdict {
  const rule = FILTERS[name]
  if (!rule) return approve(`${name} is not a known filter`)
  const scan = scanOptions(args, dashed(rule.spec))
  if (!scan.ok) return approve(`${name}: ${scan.reason}`)
  const fileOption = scan.options.find((o) => rule.fileOptions?.includes(o.name))
  if (fileOption)
    return approve(
      `${name} ${fileOption.name} reads its program or names from a file, writes, or walks a tree`,
    )
  for (const [option, reason] of Object.entries(rule.approveOptions ?? {})) {
    if (hasOption(scan.options, option)) return approve(reason)
  }
  const files = scan.operands.slice(rule.dataOperands?.(scan) ?? 0)
  if (rule.maxFiles !== undefined && files.length > rule.maxFiles)
    return approve(`${name} with ${files.length} file operands writes or misreads them`)
  return worst(allow(`${name} only reads`), rule.check?.(scan))
}

/** jq has its own option syntax (`--arg NAME VALUE` takes two words), so it gets its own scanner. */
export function classifyJq(args: readonly string[]): Verdict {
  const flags = new Set("rjcnseSaCMRhV0")
  const oneValue = new Set(["--indent"])
  // --rawfile/--slurpfile read a file into a variable: a read, with the path vetted like any other.
  const twoValues = new Set(["--arg", "--argjson", "--rawfile", "--slurpfile"])
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
    // -f/--from-file reads the program from a file, -L adds a module search path.
    return approve(`jq ${arg} is not known to be safe (it may load code from files)`)
  }
  const program = operands[0]
  if (program === undefined) return approve("jq without a program")
  return worst(allow("jq only reads"), jqFilterVerdict(program))
}
