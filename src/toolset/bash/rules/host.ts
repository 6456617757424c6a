import { approve, deny, type Verdict } from "../verdict.ts"
import { NETWORK } from "./network.ts"
import { classifyByRule, getopt, noOperands, operandsLike, type ProgramRule } from "./program.ts"
import { READERS } from "./readers.ts"
import { DMESG, HOSTNAMECTL, JOURNALCTL, SYSCTL, SYSTEMCTL, TIMEDATECTL } from "./services.ts"
import { SYSSTAT } from "./sysstat.ts"

/**
 * Host diagnostics that only read, each by its grammar. Options that change the host (set the
 * hostname or clock, clear the kernel ring buffer, vacuum the journal, kill sockets), read files
 * in ways the output would echo, or reach another machine ask a human.
 */
const NUMBER = /^\d+(\.\d+)?$/
const SYSROOT = "reads another system tree"

const INFO: Record<string, ProgramRule> = {
  uptime: {
    options: getopt("hpsV", ["help", "pretty", "since", "version"]),
    operands: noOperands("uptime takes no operands"),
  },
  free: {
    options: getopt("bkmghltvwVc:s:", [
      "bytes",
      "kilo",
      "mega",
      "giga",
      "tera",
      "peta",
      "kibi",
      "mebi",
      "gibi",
      "tebi",
      "pebi",
      "human",
      "si",
      "lohi",
      "line",
      "total",
      "committed",
      "seconds=",
      "count=",
      "wide",
      "help",
      "version",
    ]),
    operands: noOperands("free takes no operands"),
  },
  uname: {
    options: getopt("asnrvmpio", [
      "all",
      "kernel-name",
      "nodename",
      "kernel-release",
      "kernel-version",
      "machine",
      "processor",
      "hardware-platform",
      "operating-system",
      "help",
      "version",
    ]),
    operands: noOperands("uname takes no operands"),
  },
  whoami: { options: getopt("", ["help", "version"]), operands: noOperands("whoami takes no operands") },
  nproc: { options: getopt("", ["all", "ignore=", "help", "version"]), operands: noOperands("nproc") },
  id: {
    options: getopt("aZgGnruz", [
      "context",
      "group",
      "groups",
      "name",
      "real",
      "user",
      "zero",
      "help",
      "version",
    ]),
  },
  w: {
    options: getopt("hsfoiupV", ["no-header", "no-current", "short", "from", "old-style", "ip-addr", "pids"]),
  },
  who: {
    options: getopt("abdHlmpqrstTuw", [
      "all",
      "boot",
      "dead",
      "heading",
      "ips",
      "login",
      "lookup",
      "process",
      "count",
      "runlevel",
      "short",
      "time",
      "users",
      "mesg",
      "message",
      "writable",
      "help",
      "version",
    ]),
  },
  last: {
    options: getopt("adf:Fin:Rs:t:p:wxhV0123456789", [
      "hostlast",
      "dns",
      "file=",
      "fulltimes",
      "ip",
      "limit=",
      "nohostname",
      "since=",
      "until=",
      "present=",
      "fullnames",
      "system",
      "time-format=",
      "help",
      "version",
    ]),
    ask: { "-f": "parses another file", "--file": "parses another file" },
  },
  hostname: {
    options: getopt("aAbdfF:iIsyhV", [
      "alias",
      "all-fqdns",
      "boot",
      "domain",
      "fqdn",
      "long",
      "file=",
      "ip-address",
      "all-ip-addresses",
      "short",
      "yp",
      "nis",
      "help",
      "version",
    ]),
    ask: { "-b": "sets the hostname", "--boot": "sets the hostname", "-F": "sets it", "--file": "sets it" },
    operands: noOperands("hostname with a name sets the hostname"),
  },
  date: {
    options: getopt("d:f:I::r:Rs:u", [
      "date=",
      "debug",
      "file=",
      "iso-8601?",
      "resolution",
      "rfc-email",
      "rfc-3339=",
      "reference=",
      "set=",
      "utc",
      "universal",
      "help",
      "version",
    ]),
    ask: {
      "-s": "sets the clock",
      "--set": "sets the clock",
      "-f": "echoes the lines of a file",
      "--file": "echoes the lines of a file",
    },
    operands: operandsLike(/^\+/, "date with an operand other than +FORMAT sets the clock"),
  },
  lscpu: {
    ask: { "-s": SYSROOT, "--sysroot": SYSROOT },
    options: getopt("abBC::ce::Jp::s:xyhV", [
      "all",
      "online",
      "bytes",
      "caches?",
      "offline",
      "json",
      "extended?",
      "parse?",
      "sysroot=",
      "hex",
      "physical",
      "output-all",
      "help",
      "version",
    ]),
    operands: noOperands("lscpu takes no operands"),
  },
  lsblk: {
    ask: { "--sysroot": SYSROOT },
    options: getopt("ADEIJ:MOPSTabde:filmno:prstw:x:yzhV", [
      "noempty",
      "discard",
      "dedup=",
      "include=",
      "json",
      "merge",
      "output-all",
      "pairs",
      "scsi",
      "tree?",
      "all",
      "bytes",
      "nodeps",
      "exclude=",
      "fs",
      "ascii",
      "list",
      "perms",
      "noheadings",
      "output=",
      "paths",
      "raw",
      "inverse",
      "topology",
      "width=",
      "sort=",
      "shell",
      "zoned",
      "sysroot=",
      "help",
      "version",
    ]),
  },
  lsmem: {
    ask: { "-s": SYSROOT, "--sysroot": SYSROOT },
    options: getopt("JPabno:rS:s:hV", [
      "json",
      "pairs",
      "all",
      "bytes",
      "noheadings",
      "output=",
      "output-all",
      "raw",
      "split=",
      "sysroot=",
      "summary?",
      "help",
      "version",
    ]),
    operands: noOperands("lsmem takes no operands"),
  },
  vmstat: {
    options: getopt("afmnsdDp:S:wtyhV", [
      "active",
      "forks",
      "slabs",
      "one-header",
      "stats",
      "disk",
      "disk-sum",
      "partition=",
      "unit=",
      "wide",
      "timestamp",
      "no-first",
      "help",
      "version",
    ]),
    operands: operandsLike(NUMBER, "vmstat takes a delay and a count"),
  },
  findmnt: {
    options: getopt("AabCcDd:eF:fiJklmMnN:O:o:Pp::RrS:sT:t:Uuvwxy", [
      "all",
      "ascii",
      "bytes",
      "nocanonicalize",
      "canonicalize",
      "df",
      "direction=",
      "evaluate",
      "tab-file=",
      "first-only",
      "invert",
      "json",
      "kernel",
      "list",
      "mtab",
      "mountpoint=",
      "noheadings",
      "task=",
      "options=",
      "output=",
      "output-all",
      "pairs",
      "poll?",
      "submounts",
      "raw",
      "real",
      "pseudo",
      "shadowed",
      "source=",
      "fstab",
      "target=",
      "tree",
      "types=",
      "uniq",
      "notruncate",
      "nofsroot",
      "shell",
      "timeout=",
      "verify",
      "verbose",
      "vfs-all",
      "help",
      "version",
    ]),
    ask: { "-F": "parses a file and echoes it", "--tab-file": "parses a file and echoes it" },
  },
  getent: {
    options: getopt("Ais:V", ["no-addrconfig", "no-idn", "service=", "help", "usage", "version"]),
    operands: getentOperands,
    // glibc loads libnss_<service>.so: a service with a slash would load a library by path.
    check: (scanned) => {
      const service = scanned.options.find((o) => o.name === "-s" || o.name === "--service")?.value
      return service !== undefined && !/^[\w:, ]+$/.test(service)
        ? approve(`getent -s ${service} names a library to load`)
        : undefined
    },
  },
  top: {
    options: getopt("bcEeHhiOSs1d:n:o:p:u:U:w::", [], { abbreviations: false }),
    check: (scanned) =>
      scanned.options.some((o) => o.name === "-b") ? undefined : approve("top without -b is interactive"),
    operands: noOperands("top takes no operands"),
  },
}

const GETENT_READ = new Set([
  "passwd",
  "group",
  "hosts",
  "ahosts",
  "ahostsv4",
  "ahostsv6",
  "services",
  "protocols",
  "networks",
  "netgroup",
  "ethers",
  "rpc",
  "initgroups",
  "aliases",
])

function getentOperands(operands: readonly string[]): Verdict | undefined {
  const database = operands[0]
  if (database === "shadow" || database === "gshadow") return deny(`getent ${database} reads password hashes`)
  if (database === undefined || !GETENT_READ.has(database))
    return approve(`getent ${database ?? "without a database"} is not on the read-only list`)
  return undefined
}

/** Programs that only print their arguments. */
const PRINTERS = new Set(["echo", "printf", "true", "false"])

const RULES: Record<string, ProgramRule> = {
  ...INFO,
  ...READERS,
  ...NETWORK,
  ...SYSSTAT,
  systemctl: SYSTEMCTL,
  journalctl: JOURNALCTL,
  dmesg: DMESG,
  sysctl: SYSCTL,
  timedatectl: TIMEDATECTL,
  hostnamectl: HOSTNAMECTL,
}

export function classifyHost(name: string, args: readonly string[]): Verdict | undefined {
  if (PRINTERS.has(name)) return { decision: "allow", reason: `${name} prints its arguments` }
  const rule = Object.hasOwn(RULES, name) ? RULES[name] : undefined
  return rule ? classifyByRule(name, args, rule) : undefined
}

export function isHostProgram(name: string): boolean {
  return PRINTERS.has(name) || Object.hasOwn(RULES, name)
}
