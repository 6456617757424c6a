import { allow, approve, deny, type Verdict } from "../verdict.ts"
import { getopt, noOperands, operandsLike, type ProgramRule, withTraits } from "./program.ts"

/**
 * Host diagnostics that only read, each by its grammar. Options that change the host (set the
 * hostname or clock, clear the kernel ring buffer, vacuum the journal, kill sockets), read files
 * in ways the output would echo, or reach another machine ask a human.
 */

const INFO: Record<string, ProgramRule> = {
  uptime: {
    examples: { allow: ["uptime", "uptime -p"], ask: ["uptime x"] },
    options: getopt("hpsV", ["help", "pretty", "since", "version"]),
    operands: noOperands("uptime takes no operands"),
  },
  free: {
    examples: { allow: ["free -h", "free -m -s 1 -c 2"], ask: ["free x"] },
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
    examples: { allow: ["uname -a"], ask: ["uname x"] },
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
  whoami: {
    options: getopt("", ["help", "version"]),
    operands: noOperands("whoami takes no operands"),
    examples: { allow: ["whoami"], ask: ["whoami x"] },
  },
  nproc: {
    options: getopt("", ["all", "ignore=", "help", "version"]),
    operands: noOperands("nproc"),
    examples: { allow: ["nproc --all"], ask: ["nproc x"] },
  },
  id: {
    examples: { allow: ["id -u", "id root"], ask: ["id --bogus"] },
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
    examples: { allow: ["w -h"], ask: ["w --bogus"] },
    options: getopt("hsfoiupV", ["no-header", "no-current", "short", "from", "old-style", "ip-addr", "pids"]),
  },
  who: {
    examples: { allow: ["who -b"], ask: ["who --bogus"] },
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
    examples: { allow: ["last -n 5"], ask: ["last -f /var/log/btmp"] },
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
    examples: { allow: ["hostname -f"], ask: ["hostname -F /etc/hostname", "hostname newname"] },
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
    examples: {
      allow: ["date -u +%FT%T -d @0"],
      ask: ["date -s 2020-01-01", "date 010100002000"],
      deny: ["date -uf/proc/self/environ"],
    },
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
  getent: {
    examples: {
      allow: ["getent hosts example.com", "getent passwd root"],
      ask: ["getent -s ../../tmp/x passwd"],
      deny: ["getent shadow", "getent gshadow"],
    },
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
const PRINTERS: Record<string, ProgramRule> = {
  echo: {
    classify: () => allow("echo prints its arguments"),
    prints: "arguments",
    examples: { allow: ["echo hello", "echo -n x"] },
  },
  printf: {
    classify: () => allow("printf prints its arguments"),
    prints: "format",
    examples: { allow: ["printf '%s\\n' x"], deny: ["printf 'rm -r /tmp/x' | sh"] },
  },
  true: { classify: () => allow("true prints its arguments"), examples: { allow: ["true"] } },
  false: { classify: () => allow("false prints its arguments"), examples: { allow: ["false"] } },
}

export const HOST: Record<string, ProgramRule> = {
  ...withTraits(INFO, { reads: "files" }),
  ...withTraits(PRINTERS, { reads: "nothing" }),
}
