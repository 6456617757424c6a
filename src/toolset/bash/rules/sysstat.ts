import { allow, approve, deny, type Verdict } from "../verdict.ts"
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

/** BSD-style ps options (no dash) that show nothing dangerous; `e` would print environments. */
const PS_BSD_SAFE = /^[auxwfljsvrTchnSHmX]+$/
/** UNIX and GNU options that take a value as the next word. */
const PS_VALUE =
  /^(-[A-Za-z]*[pCuUgGoOtsqk]|--(pid|ppid|sort|format|cols|columns|rows|user|group|tty|sid|width|lines|quick-pid|Group|User))$/

/** ps only lists processes; its one leak is `e` (BSD), which prints every process's environment. */
export function classifyPs(args: readonly string[]): Verdict {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (PS_VALUE.test(arg)) {
      // Were dupin wrong about the option taking a value, the word would be a BSD option to ps.
      const value = args[++i]
      if (value !== undefined && /^[A-Za-z]*e[A-Za-z]*$/.test(value))
        return approve(`ps ${arg} ${value}: ${value} could be read as BSD options that print environments`)
      continue
    }
    if (arg.startsWith("-") || /^\d+(,\d+)*$/.test(arg)) continue
    // `ps e`, `ps auxe`, `ps eww <pid>` print every process's environment: dupin's own included.
    if (arg.includes("e")) return deny("ps e prints process environments (provider keys)")
    if (!PS_BSD_SAFE.test(arg)) return approve(`ps ${arg} is not known to be read-only`)
  }
  return allow("ps lists processes")
}
