import { allow, approve, type Verdict } from "../verdict.ts"
import { getopt, type ProgramRule, type RuleContext, withTraits } from "./program.ts"

/** Sockets, interfaces and open files: listing them is read-only, killing or reconfiguring is not. */
const SOCKETS: Record<string, ProgramRule> = {
  ss: {
    outputOptions: ["-D", "--diag"],
    examples: {
      allow: ["ss -tulpn", "ss -tulpn state established"],
      ask: ["ss -K dst 127.0.0.9", "ss --kil dst 127.0.0.9"],
      deny: ["ss -D /etc/x"],
    },
    options: getopt("hVnraloemipTisbEZzN:460tMSudwxf:KHOA:D:F:", [
      "help",
      "version",
      "numeric",
      "resolve",
      "all",
      "listening",
      "options",
      "extended",
      "memory",
      "processes",
      "threads",
      "info",
      "tipcinfo",
      "summary",
      "tos",
      "cgroup",
      "bpf",
      "events",
      "context",
      "contexts",
      "net=",
      "ipv4",
      "ipv6",
      "packet",
      "tcp",
      "mptcp",
      "sctp",
      "udp",
      "dccp",
      "raw",
      "unix",
      "tipc",
      "vsock",
      "xdp",
      "family=",
      "kill",
      "no-header",
      "oneline",
      "inet-sockopt",
      "query=",
      "socket=",
      "diag=",
      "filter=",
      "bpf-maps",
      "bpf-map-id=",
    ]),
    ask: {
      "-K": "kills sockets",
      "--kill": "kills sockets",
      "-D": "writes a diagnostic dump to a file",
      "--diag": "writes a diagnostic dump to a file",
      "-F": "reads its filter from a file",
      "--filter": "reads its filter from a file",
    },
  },
  netstat: {
    examples: { allow: ["netstat -tulpn"], ask: ["netstat x"] },
    options: getopt("rigsMvWnNepoclaFCZ46tuwxA:", [
      "version",
      "help",
      "route",
      "interfaces",
      "groups",
      "statistics",
      "masquerade",
      "verbose",
      "wide",
      "numeric",
      "numeric-hosts",
      "numeric-ports",
      "numeric-users",
      "symbolic",
      "extend",
      "programs",
      "timers",
      "continuous",
      "listening",
      "all",
      "fib",
      "cache",
      "context",
      "tcp",
      "udp",
      "udplite",
      "sctp",
      "raw",
      "unix",
      "protocol=",
    ]),
    operands: (operands) => (operands.length > 0 ? approve("netstat takes no operands") : undefined),
  },
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
/** iproute2 matches its options by prefix in a fixed order; only these exact spellings are known to be reads. */
const IP_FLAGS =
  /^-(4|6|s|stats|statistics|d|details|j|json|p|pretty|br|brief|c|color|o|oneline|h|human|r|resolve)$/

function classifyIp(args: readonly string[]): Verdict {
  let i = 0
  for (; i < args.length && args[i]!.startsWith("-"); i++) {
    const option = args[i]!
    if (/^-(n|netns)$/.test(option)) i++
    else if (!IP_FLAGS.test(option)) {
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

/** `ip netns exec NS cmd…`, `ip vrf exec VRF cmd…` (also with `-all`): the command it runs. */
function ipInnerCommand(args: readonly string[]): string[] | undefined {
  const exec = args.findIndex(
    (a, i) => a === "exec" && i > 0 && /^(netns|vrf|n|ne|net|vr)/.test(args[i - 1]!),
  )
  if (exec === -1) return undefined
  // `ip -all netns exec cmd` has no namespace name.
  return args.includes("-all") || args.includes("-a") ? args.slice(exec + 1) : args.slice(exec + 2)
}

/**
 * lsof has its own option syntax (`+D dir`, `-i:80`, `-nP`). `-D` writes a device cache, `-k`
 * and `-m` read other kernel files: they ask. The rest only lists.
 */
const LSOF_FLAGS = /^-[abhlnNoOPRtUvVwXxKMlSTZ]+$/
const LSOF_ATTACHED = /^-(i.*|F.*|s.*|T.*|r\d*|E|f)$|^\+(r\d*|f|L\d*|c\d+|w|E|M)$/
const LSOF_VALUE = new Set(["-c", "-d", "-g", "-p", "-u", "+d", "+D", "-e"])

function classifyLsof(args: readonly string[]): Verdict {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    if (LSOF_VALUE.has(arg)) {
      i++
      continue
    }
    if (!/^[-+]/.test(arg) || LSOF_FLAGS.test(arg) || LSOF_ATTACHED.test(arg)) continue
    return approve(`lsof ${arg} is not known to be read-only (-D writes a cache, -k/-m read kernel files)`)
  }
  return allow("lsof lists open files")
}

export const NETWORK: Record<string, ProgramRule> = {
  ...withTraits(SOCKETS, { reads: "files" }),
  ip: {
    // `ip netns exec NS cmd…` runs a command: the verdict is that command's.
    classify: (args: readonly string[], context: RuleContext) => {
      const inner = ipInnerCommand(args)
      return inner ? context.wrapped({ kind: "argv", argv: inner }) : classifyIp(args)
    },
    examples: {
      allow: ["ip -br addr show", "ip route get 1.1.1.1"],
      ask: ["ip link set lo mtu 1000", "ip -batch /tmp/x", "ip netns exec x uptime"],
      deny: ["ip netns exec x rm -r /tmp/x"],
    },
  },
  lsof: {
    classify: classifyLsof,
    deviceMetadata: true,
    examples: { allow: ["lsof -nP -iTCP:443", "lsof +D /var/log"], ask: ["lsof -D b"] },
  },
}
