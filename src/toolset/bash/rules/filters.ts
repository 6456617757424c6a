import { hasOption, scanOptions } from "../options.ts"
import { approve, type Verdict } from "../verdict.ts"
import { getopt, type ProgramRule, withTraits } from "./program.ts"

/**
 * Text filters. Reading a file the model names is a read: the policy has already refused every
 * argument naming a credential (resolved as the kernel resolves it). What asks is what is not a
 * plain read: options that take patterns or names from a file, walk whole trees (credentials
 * below cannot be vetted), write a file or run a program. sed, awk and jq are in their own files.
 */
const FROM_FILE = "reads its program or names from a file, writes, or walks a tree"

/** Each of `options` asks for `reason`. */
const asking = (reason: string, ...options: string[]) => Object.fromEntries(options.map((o) => [o, reason]))

/** Operands: at most `max` files after `data` leading operands that are not files (`uniq IN OUT` writes OUT). */
const files =
  (name: string, max: number, data = 0) =>
  (operands: readonly string[]): Verdict | undefined => {
    const count = operands.slice(data).length
    return count > max ? approve(`${name} with ${count} file operands writes or misreads them`) : undefined
  }

const GREP: Omit<ProgramRule, "examples"> = {
  options: getopt(
    "EFGPiyvwxclLoqsbHhnTZzUaIVrRe:f:m:A:B:C:d:D:",
    [
      ...["regexp=", "file=", "max-count=", "after-context=", "before-context=", "context="],
      ...["directories=", "devices=", "label=", "include=", "exclude=", "exclude-from="],
      ...["exclude-dir=", "binary-files=", "group-separator="],
      ...["extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "ignore-case"],
      ...["no-ignore-case", "invert-match", "word-regexp", "line-regexp", "count"],
      ...["files-with-matches", "files-without-match", "only-matching", "quiet", "silent"],
      ...["no-messages", "byte-offset", "with-filename", "no-filename", "line-number", "initial-tab"],
      ...["null", "null-data", "text", "binary", "line-buffered", "no-group-separator", "version"],
      ...["help", "recursive", "dereference-recursive", "color?", "colour?"],
    ],
    { numericShort: true },
  ),
  // -r with no file searches the working directory.
  ask: asking(
    FROM_FILE,
    ...["-f", "--file", "--exclude-from", "-r", "-R", "--recursive", "--dereference-recursive"],
    ...["-d", "--directories"],
  ),
}

const SORT_GRAMMAR = getopt("bdfgiMhnRrVcCsuzmk:t:S:T:o:", [
  ...["key=", "field-separator=", "buffer-size=", "temporary-directory=", "output=", "parallel="],
  ...["sort=", "random-source=", "files0-from=", "batch-size=", "compress-program="],
  ...["ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort"],
  ...["ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort"],
  ...["reverse", "version-sort", "stable", "unique", "zero-terminated", "merge", "debug", "check?"],
])

/** Whether `sort` writes the files it names (`-o`, `--out`); an unreadable option line counts as writing. */
function sortWrites(args: readonly string[]): boolean {
  const scan = scanOptions(args, SORT_GRAMMAR)
  return !scan.ok || hasOption(scan.options, "-o", "--output")
}

const FILTERS: Record<string, ProgramRule> = {
  grep: {
    ...GREP,
    examples: {
      allow: ["grep -A 3 -i error", "grep x /var/log/syslog"],
      ask: ["grep --fil=/tmp/p", "grep -r old /tmp/d"],
      deny: ["grep x --file=/etc/shadow", "grep x /home/u/.aws/credentials"],
    },
  },
  egrep: { ...GREP, examples: { allow: ["egrep 'a|b' /tmp/x"], ask: ["egrep -r x /tmp/d"] } },
  fgrep: { ...GREP, examples: { allow: ["fgrep -n x /tmp/x"], ask: ["fgrep -f /tmp/p /tmp/x"] } },
  head: {
    options: getopt("qvzn:c:", ["lines=", "bytes=", "quiet", "silent", "verbose", "zero-terminated"], {
      numericShort: true,
    }),
    examples: {
      allow: ["head -n 5 /tmp/x", "head -20"],
      ask: ["head --bogus"],
      deny: ["head --lines=3 /opt/dupin/config.yaml"],
    },
  },
  tail: {
    options: getopt(
      "qvzfFn:c:s:",
      [
        ...["lines=", "bytes=", "sleep-interval=", "max-unchanged-stats="],
        ...["quiet", "silent", "verbose", "zero-terminated", "retry", "follow?"],
      ],
      { numericShort: true },
    ),
    examples: {
      allow: ["tail -20", "tail -f /var/log/syslog"],
      ask: ["tail --bogus"],
      deny: ["tail -f /etc/dupin/env"],
    },
  },
  sort: {
    options: SORT_GRAMMAR,
    // -o writes a file, -T writes temporary files there, --compress-program runs a program.
    ask: {
      ...asking(
        FROM_FILE,
        "-o",
        "--output",
        "-T",
        "--temporary-directory",
        "--random-source",
        "--files0-from",
      ),
      "--compress-program": "runs a program",
    },
    writes: sortWrites,
    runsInput: (args) => (args.some((a) => /^--co/.test(a)) ? "sort --compress-program" : undefined),
    examples: {
      allow: ["sort -k2,2n -t,"],
      ask: ["sort -o /tmp/out", "sort --compress-program=sh"],
      deny: ["sort -o /etc/passwd", "printf 'rm -r /tmp/x\\n' | sort --compress-program=sh -S 1k"],
    },
  },
  uniq: {
    options: getopt("cdDiuzf:s:w:", [
      ...["skip-fields=", "skip-chars=", "check-chars=", "count", "repeated", "unique"],
      ...["ignore-case", "zero-terminated", "all-repeated?", "group?"],
    ]),
    operands: files("uniq", 1),
    writesNamed: (args) => args.filter((a) => !a.startsWith("-")).slice(1),
    examples: { allow: ["uniq -c /tmp/x"], ask: ["uniq - /tmp/out"], deny: ["uniq /tmp/x /etc/x"] },
  },
  wc: {
    options: getopt("clmwL", [
      "bytes",
      "chars",
      "lines",
      "words",
      "max-line-length",
      "files0-from=",
      "total=",
    ]),
    ask: asking(FROM_FILE, "--files0-from"),
    examples: { allow: ["wc -l /tmp/x"], deny: ["wc --files0-from=/proc/self/environ"] },
  },
  cut: {
    options: getopt("snzb:c:f:d:", [
      ...["bytes=", "characters=", "fields=", "delimiter=", "output-delimiter="],
      ...["only-delimited", "complement", "zero-terminated"],
    ]),
    examples: { allow: ["cut -d: -f1 /etc/passwd"], ask: ["cut --bogus"] },
  },
  // tr never takes files: its operands are character sets.
  tr: {
    options: getopt("cdstC", ["complement", "delete", "squeeze-repeats", "truncate-set1"]),
    operands: files("tr", 0, 2),
    examples: { allow: ["tr a-z A-Z", "tr -d '\\r'"], ask: ["tr a b /tmp/x"] },
  },
  base64: {
    options: getopt("diw:", ["wrap=", "decode", "ignore-garbage"]),
    examples: { allow: ["base64 -d /tmp/x", "base64 -w0"], ask: ["base64 --bogus"] },
  },
  tac: {
    options: getopt("brs:", ["separator=", "before", "regex"]),
    examples: { allow: ["tac /tmp/x"], ask: ["tac --bogus"] },
  },
  rev: { options: getopt(""), examples: { allow: ["rev /tmp/x"], ask: ["rev -x"] } },
}

export const TEXT_FILTERS = withTraits(FILTERS, { reads: "files" })
