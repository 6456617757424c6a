import { getopt, operandsLike, type ProgramRule } from "./program.ts"

/**
 * sysstat and procps. sysstat matches its options exactly (no abbreviations); `pidstat -e` runs a
 * program (the policy also classifies that program, see wrappers.ts), `iostat -f` reads another
 * sysfs tree.
 */
const SYSSTAT_LONG = ["dec=", "human", "compact", "pretty"]
const INTERVAL = /^\d+$/

export const SYSSTAT: Record<string, ProgramRule> = {
  pidstat: {
    options: getopt("dHhIlRrstU::uVvwC:G:p:T:e", SYSSTAT_LONG, {
      abbreviations: false,
      optionalNext: { "-U": /^[a-z_][a-z0-9_-]*$/i },
    }),
    ask: { "-e": "runs a program" },
    operands: operandsLike(INTERVAL, "pidstat takes an interval and a count"),
  },
  iostat: {
    options: getopt("cdhkmNstVxyzHf:j:o:g:p::", SYSSTAT_LONG, {
      abbreviations: false,
      optionalNext: { "-p": /^(ALL|[A-Za-z][\w,.:-]*)$/ },
    }),
    ask: { "-f": "reads statistics from another directory" },
    operands: operandsLike(/^(\d+|ALL|[A-Za-z][\w.:-]*)$/, "iostat takes devices, an interval and a count"),
  },
  mpstat: {
    options: getopt("AnTuVHI:N:o:P:", SYSSTAT_LONG, { abbreviations: false }),
    operands: operandsLike(INTERVAL, "mpstat takes an interval and a count"),
  },
}
