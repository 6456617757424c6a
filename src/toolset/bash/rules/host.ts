import { allow, approve, deny, type Verdict } from "../verdict.ts"

/**
 * Host diagnostics that only read. Each entry returns a verdict for the arguments; options that
 * change the host (set the hostname or clock, clear the kernel ring buffer, vacuum the journal,
 * kill sockets) or reach another machine need a human.
 */
const ANY_ARGS = new Set([
  "uptime",
  "free",
  "df",
  "uname",
  "whoami",
  "id",
  "nproc",
  "lscpu",
  "lsblk",
  "lsmem",
  "vmstat",
  "iostat",
  "mpstat",
  "pidstat",
  "w",
  "who",
  "ls",
  "du",
  "stat",
  "lsof",
  "findmnt",
  "netstat",
  "echo",
  "printf",
  "true",
  "false",
])

export function classifyHost(name: string, args: readonly string[]): Verdict | undefined {
  if (ANY_ARGS.has(name)) return allow(`${name} is read-only`)
  const rule = RULES[name]
  return rule?.(args)
}

const shortGroups = (args: readonly string[]) =>
  args
    .filter((a) => /^-[A-Za-z]/.test(a))
    .map((a) => a.slice(1))
    .join("")

const RULES: Record<string, (args: readonly string[]) => Verdict> = {
  hostname: (args) =>
    args.every((a) =>
      /^-[fsiIdA]$|^--(fqdn|short|ip-address|all-ip-addresses|domain|all-fqdns|long)$/.test(a),
    )
      ? allow("hostname query")
      : approve("hostname with arguments can set the hostname"),
  date: (args) =>
    args.every((a) => /^\+|^-[uRI]|^--(utc|universal|rfc-email|iso-8601|rfc-3339)/.test(a))
      ? allow("date query")
      : approve("date with arguments can set the clock or read files"),
  top: (args) =>
    shortGroups(args).includes("b") ? allow("top in batch mode") : approve("top without -b is interactive"),
  systemctl: (args) => {
    if (args.some((a) => /^-[A-Za-z]*[HM]|^--(host|machine|root|image)(=|$)/.test(a))) {
      return approve("systemctl on another host, machine or root")
    }
    const verb = args.find((a) => !a.startsWith("-")) ?? "list-units"
    return SYSTEMCTL_READ.has(verb)
      ? allow(`systemctl ${verb} is read-only`)
      : approve(`systemctl ${verb} changes services`)
  },
  journalctl: (args) => {
    const bad = args.find((a) =>
      /^--(vacuum-\w+|rotate|flush|sync|relinquish-var|smart-relinquish-var|setup-keys|update-catalog|directory|file|root|image|machine|cursor-file)(=|$)|^-[A-Za-z]*[DM]/.test(
        a,
      ),
    )
    return bad
      ? approve(`journalctl ${bad.split("=")[0]} changes the journal or reads other files`)
      : allow("journalctl read")
  },
  dmesg: (args) => {
    const long = args.find((a) =>
      /^--(clear|read-clear|console-level|console-off|console-on|file)(=|$)/.test(a),
    )
    if (long || /[cCnDEF]/.test(shortGroups(args)))
      return approve("dmesg options that clear the buffer, set the console or read files")
    return allow("dmesg read")
  },
  ss: (args) => {
    const long = args.find((a) => /^--(kill|diag|filter)(=|$)/.test(a))
    return long || /[KDF]/.test(shortGroups(args))
      ? approve("ss -K kills sockets, -D/-F use files")
      : allow("ss read")
  },
  ip: classifyIp,
  ps: classifyPs,
  getent: (args) => {
    const database = args.find((a) => !a.startsWith("-"))
    if (database === "shadow" || database === "gshadow")
      return deny(`getent ${database} reads password hashes`)
    return allow("getent lookup")
  },
  find: (args) => {
    // -exec and friends run commands, -delete and -fprint* change files: never through find.
    const bad = args.find((a) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(a))
    if (bad) return deny(`find ${bad} runs commands or changes files`)
    if (args.some((a) => a === "-files0-from")) return approve("find -files0-from reads a file")
    return allow("find lists names")
  },
  cat: (args) => {
    const files = args.filter(
      (a) =>
        !/^-[AbeEnstTuv]+$|^--(show-all|number-nonblank|show-ends|number|squeeze-blank|show-tabs|show-nonprinting)$/.test(
          a,
        ),
    )
    const other = files.find((f) => f !== "-" && !isReadableProcFile(f))
    return other
      ? approve(`cat of ${other}: only /proc status files are read without approval`)
      : allow("cat of /proc")
  },
}

const SYSTEMCTL_READ = new Set([
  "status",
  "list-units",
  "list-unit-files",
  "list-timers",
  "list-sockets",
  "list-dependencies",
  "is-active",
  "is-enabled",
  "is-failed",
  "show",
  "cat",
  "--failed",
])

/** /proc files that describe the system; not environ, mem, fd, root, cwd (see paths.ts). */
function isReadableProcFile(path: string): boolean {
  const pid = "(self|thread-self|\\d+)"
  const system =
    "(loadavg|meminfo|cpuinfo|uptime|version|stat|vmstat|diskstats|mounts|partitions|swaps|filesystems|cgroups|interrupts|softirqs|zoneinfo|buddyinfo|cmdline|modules|devices|pressure/(cpu|memory|io)|net/[a-z0-9_]+|sys/[a-z0-9_/.-]+)"
  const perProcess =
    "(status|limits|cgroup|stat|statm|io|oom_score|oom_score_adj|mountinfo|mounts|cmdline|sched|wchan|comm)"
  return new RegExp(`^/proc/(${system}|${pid}/${perProcess})$`).test(path) && !path.includes("..")
}

const IP_OBJECTS = new Set([
  "a",
  "addr",
  "address",
  "r",
  "ro",
  "route",
  "l",
  "link",
  "n",
  "neigh",
  "neighbor",
  "neighbour",
  "ru",
  "rule",
  "maddr",
  "maddress",
])
const IP_COMMANDS = new Set(["show", "list", "lst", "ls", "get"])

function classifyIp(args: readonly string[]): Verdict {
  let i = 0
  for (; i < args.length && args[i]!.startsWith("-"); i++) {
    const option = args[i]!
    if (/^-(n|netns)$/.test(option)) i++
    else if (
      !/^-(4|6|s|stats|statistics|d|details|j|json|p|pretty|br|brief|c|color|o|oneline|h|human|r|resolve)$/.test(
        option,
      )
    ) {
      return approve(`ip ${option} is not known to be read-only (-batch runs commands from a file)`)
    }
  }
  const [object, command] = args.slice(i)
  if (object === undefined || !IP_OBJECTS.has(object))
    return approve(`ip ${object ?? ""} is not on the read-only allowlist`)
  if (command !== undefined && !IP_COMMANDS.has(command) && !/^(dev|to|from|table|scope|up)$/.test(command)) {
    return approve(`ip ${object} ${command} changes the network`)
  }
  return allow(`ip ${object} show`)
}

/** BSD-style ps options (no dash) that show nothing dangerous; `e` would print environments. */
const PS_BSD_SAFE = /^[auxwfljsvrTchnSH]+$/

function classifyPs(args: readonly string[]): Verdict {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (
      /^-[A-Za-z]*[pCuUgGoOtsqN]$/.test(arg) ||
      /^--(pid|ppid|sort|format|cols|columns|rows|user|group|tty|sid)$/.test(arg)
    ) {
      i++
      continue
    }
    if (arg.startsWith("-") || /^\d+(,\d+)*$/.test(arg)) continue
    // `ps e`, `ps auxe`, `ps eww <pid>` print every process's environment: dupin's own included.
    if (arg.includes("e")) return deny("ps e prints process environments (provider keys)")
    if (!PS_BSD_SAFE.test(arg)) return approve(`ps ${arg} is not known to be read-only`)
  }
  return allow("ps lists processes")
}
