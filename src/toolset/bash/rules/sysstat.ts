import {
  classifyByRule,
  getopt,
  type Inner,
  operandsLike,
  type ProgramRule,
  type RuleContext,
  withTraits,
} from "./program.ts"

/**
 * sysstat. It matches its options exactly (no abbreviations); `pidstat -e` runs a program (its
 * verdict is that program's), `iostat -f` reads another sysfs tree.
 */
const SYSSTAT_LONG = ["dec=", "human", "compact", "pretty"]
const INTERVAL = /^\d+$/

const PIDSTAT: Omit<ProgramRule, "examples"> = {
  options: getopt("dHhIlRrstU::uVvwC:G:p:T:e", SYSSTAT_LONG, {
    abbreviations: false,
    optionalNext: { "-U": /^[a-z_][a-z0-9_-]*$/i },
  }),
  ask: { "-e": "runs a program" },
  operands: operandsLike(INTERVAL, "pidstat takes an interval and a count"),
}

/** pidstat runs a program only with -e; everything after -e is that program. */
function pidstatCommand(args: readonly string[]): Inner {
  const inner = args.slice(args.indexOf("-e") + 1)
  return inner.length > 0 ? { kind: "argv", argv: inner } : { kind: "none" }
}

export const SYSSTAT = withTraits(
  {
    pidstat: {
      classify: (args: readonly string[], context: RuleContext) =>
        args.includes("-e")
          ? context.wrapped(pidstatCommand(args))
          : classifyByRule("pidstat", args, { ...PIDSTAT, examples: {} }),
      examples: {
        allow: ["pidstat 1 1", "pidstat -u -p 1 1 1"],
        ask: ["pidstat 1 1 -e uptime"],
        deny: ["pidstat 1 1 -e sh -c 'rm -r /tmp/x'"],
      },
    },
    iostat: {
      options: getopt("cdhkmNstVxyzHf:j:o:g:p::", SYSSTAT_LONG, {
        abbreviations: false,
        optionalNext: { "-p": /^(ALL|[A-Za-z][\w,.:-]*)$/ },
      }),
      ask: { "-f": "reads statistics from another directory" },
      operands: operandsLike(/^(\d+|ALL|[A-Za-z][\w.:-]*)$/, "iostat takes devices, an interval and a count"),
      deviceMetadata: true,
      examples: { allow: ["iostat -x 1 2"], ask: ["iostat -f /tmp/x"] },
    },
    mpstat: {
      options: getopt("AnTuVHI:N:o:P:", SYSSTAT_LONG, { abbreviations: false }),
      operands: operandsLike(INTERVAL, "mpstat takes an interval and a count"),
      examples: { allow: ["mpstat -P ALL 1 1"], ask: ["mpstat x"] },
    },
  } satisfies Record<string, ProgramRule>,
  { reads: "files" },
)
