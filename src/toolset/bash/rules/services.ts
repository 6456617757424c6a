import { approve } from "../verdict.ts"
import { getopt, noOperands, type ProgramRule, withTraits } from "./program.ts"

/**
 * systemd and the kernel log: reading them is a diagnosis, everything else they can do (stop a
 * unit, rotate the journal, clear the ring buffer) is a change. Each grammar lists the program's
 * own long options, the dangerous ones too, so an abbreviation resolves to what the program
 * would pick (`journalctl --rot` is `--rotate`, which asks).
 */
type Grammar = Omit<ProgramRule, "examples">

const SYSTEMCTL_READ = new Set([
  "status",
  "show",
  "cat",
  "list-units",
  "list-unit-files",
  "list-timers",
  "list-sockets",
  "list-dependencies",
  "list-jobs",
  "list-paths",
  "list-automounts",
  "is-active",
  "is-enabled",
  "is-failed",
  "is-system-running",
  "get-default",
])

const ELSEWHERE = "works on another host, container or root"
/** systemd tools' options that point them at another host or container. */
const ELSEWHERE_OPTIONS = { "-H": ELSEWHERE, "--host": ELSEWHERE, "-M": ELSEWHERE, "--machine": ELSEWHERE }

const SYSTEMCTL: Grammar = {
  options: getopt("ahH:M:p:P:t:s:n:o:iTlqrfV", [
    "help",
    "version",
    "system",
    "user",
    "host=",
    "machine=",
    "type=",
    "state=",
    "failed",
    "property=",
    "value",
    "all",
    "full",
    "recursive",
    "reverse",
    "with-dependencies",
    "job-mode=",
    "show-transaction",
    "show-types",
    "check-inhibitors=",
    "ignore-inhibitors",
    "kill-whom=",
    "kill-value=",
    "signal=",
    "what=",
    "now",
    "dry-run",
    "quiet",
    "wait",
    "no-block",
    "no-wall",
    "no-reload",
    "legend=",
    "no-legend",
    "no-pager",
    "no-ask-password",
    "global",
    "runtime",
    "force",
    "preset-mode=",
    "root=",
    "image=",
    "image-policy=",
    "lines=",
    "output=",
    "firmware-setup",
    "boot-loader-menu=",
    "boot-loader-entry=",
    "reboot-argument=",
    "plain",
    "timestamp=",
    "read-only",
    "mkdir",
    "marked",
    "drop-in=",
    "when=",
  ]),
  ask: { ...ELSEWHERE_OPTIONS, "--root": ELSEWHERE, "--image": ELSEWHERE },
  // The verb is the first operand once every option (and its value) is set aside.
  operands: (operands) => {
    const verb = operands[0] ?? "list-units"
    return SYSTEMCTL_READ.has(verb) ? undefined : approve(`systemctl ${verb} changes services`)
  },
}

const CHANGES_JOURNAL = "changes the journal or reads files other than the journal"

const JOURNALCTL: Grammar = {
  options: getopt(
    "hefo:aln::qmb::kD:p:g:c:S:U:t:T:u:NF:xrM:i:",
    [
      "help",
      "version",
      "system",
      "user",
      "machine=",
      "merge",
      "directory=",
      "file=",
      "root=",
      "image=",
      "image-policy=",
      "namespace=",
      "since=",
      "until=",
      "cursor=",
      "after-cursor=",
      "cursor-file=",
      "boot?",
      "this-boot",
      "unit=",
      "user-unit=",
      "identifier=",
      "exclude-identifier=",
      "priority=",
      "facility=",
      "grep=",
      "case-sensitive?",
      "dmesg",
      "output=",
      "output-fields=",
      "lines?",
      "reverse",
      "show-cursor",
      "utc",
      "catalog",
      "no-hostname",
      "no-full",
      "full",
      "all",
      "follow",
      "no-tail",
      "quiet",
      "no-pager",
      "pager-end",
      "interval=",
      "verify-key=",
      "force",
      "setup-keys",
      "fields",
      "field=",
      "list-boots",
      "disk-usage",
      "vacuum-size=",
      "vacuum-files=",
      "vacuum-time=",
      "verify",
      "sync",
      "relinquish-var",
      "smart-relinquish-var",
      "flush",
      "rotate",
      "header",
      "list-catalog",
      "dump-catalog",
      "update-catalog",
    ],
    // journalctl looks at the next word to decide whether it is the value of -n/-b.
    {
      optionalNext: {
        "-n": /^[+-]?\d+$|^all$/,
        "--lines": /^[+-]?\d+$|^all$/,
        "-b": /^([+-]?\d+|[0-9a-f]{32}([+-]\d+)?|all)$/,
        "--boot": /^([+-]?\d+|[0-9a-f]{32}([+-]\d+)?|all)$/,
      },
    },
  ),
  ask: Object.fromEntries(
    [
      "-D",
      "--directory",
      "-i",
      "--file",
      "--root",
      "--image",
      "-M",
      "--machine",
      "--cursor-file",
      "--verify-key",
      "--setup-keys",
      "--interval",
      "--force",
      "--vacuum-size",
      "--vacuum-files",
      "--vacuum-time",
      "--verify",
      "--sync",
      "--relinquish-var",
      "--smart-relinquish-var",
      "--flush",
      "--rotate",
      "--update-catalog",
    ].map((o) => [o, CHANGES_JOURNAL]),
  ),
}

const CHANGES_KERNEL_LOG = "clears the kernel log, sets the console or reads a file"

const DMESG: Grammar = {
  options: getopt("CcDdEeF:f:HhJkL::l:n:Pp:rSs:TtuVwWx", [
    "clear",
    "read-clear",
    "console-off",
    "console-on",
    "file=",
    "facility=",
    "human",
    "json",
    "kernel",
    "color?",
    "level=",
    "console-level=",
    "nopager",
    "force-prefix",
    "raw",
    "noescape",
    "syslog",
    "buffer-size=",
    "userspace",
    "follow",
    "follow-new",
    "decode",
    "show-delta",
    "reltime",
    "ctime",
    "notime",
    "time-format=",
    "since=",
    "until=",
    "help",
    "version",
  ]),
  ask: Object.fromEntries(
    ["-C", "--clear", "-c", "--read-clear", "-D", "--console-off", "-E", "--console-on", "-n"]
      .concat(["--console-level", "-F", "--file"])
      .map((o) => [o, CHANGES_KERNEL_LOG]),
  ),
  operands: noOperands("dmesg takes no operands"),
}

/** sysctl reads kernel settings; `-w`, `name=value`, `-p` and `--system` write them. */
const WRITES_SETTINGS = "writes kernel settings"

const SYSCTL: Grammar = {
  options: getopt("abeNnp::r:qwhVAXdfo", [
    "all",
    "deprecated",
    "dry-run",
    "binary",
    "ignore",
    "names",
    "values",
    "load?",
    "system",
    "pattern=",
    "quiet",
    "write",
    "help",
    "version",
  ]),
  ask: Object.fromEntries(
    ["-w", "--write", "-p", "--load", "--system", "-f"].map((o) => [o, WRITES_SETTINGS]),
  ),
  operands: (operands) =>
    operands.some((o) => o.includes("=")) ? approve(`sysctl ${WRITES_SETTINGS}`) : undefined,
}

/** systemd's `*ctl` status tools: their status verbs read, the rest set the clock or the name. */
function statusTool(name: string, verbs: readonly string[], long: readonly string[]): Grammar {
  const read = new Set(verbs)
  return {
    options: getopt("hH:M:a", [
      "help",
      "version",
      "no-pager",
      "no-ask-password",
      "host=",
      "machine=",
      ...long,
    ]),
    ask: ELSEWHERE_OPTIONS,
    operands: (operands) => {
      const verb = operands[0] ?? "status"
      return read.has(verb) ? undefined : approve(`${name} ${verb} changes the system`)
    },
  }
}

const TIMEDATECTL = statusTool(
  "timedatectl",
  ["status", "show", "list-timezones", "timesync-status", "show-timesync"],
  ["adjust-system-clock", "monitor", "property=", "all", "value"],
)
const HOSTNAMECTL = statusTool("hostnamectl", ["status"], ["transient", "static", "pretty", "json="])

export const SERVICES = withTraits(
  {
    systemctl: {
      ...SYSTEMCTL,
      examples: {
        allow: ["systemctl status kubelet", "systemctl list-units --type=service --state=failed"],
        ask: ["systemctl restart kubelet", "systemctl -H host status", "systemctl -pstatus stop x.service"],
      },
    },
    journalctl: {
      ...JOURNALCTL,
      outputOptions: ["--cursor-file"],
      examples: {
        allow: ["journalctl -u kubelet --since today", "journalctl -b -1 -u kubelet -n 20 --no-pager"],
        ask: ["journalctl --rot", "journalctl --vacuum-size=1M", "journalctl -D /tmp/j"],
        deny: ["journalctl --cursor-file=/etc/x -n 1"],
      },
    },
    dmesg: {
      ...DMESG,
      examples: {
        allow: ["dmesg -T"],
        ask: ["dmesg -c", "dmesg --cle"],
        deny: ["dmesg --fil=/proc/self/environ"],
      },
    },
    sysctl: {
      ...SYSCTL,
      examples: {
        allow: ["sysctl -n net.ipv4.ip_forward"],
        ask: ["sysctl -w kernel.domainname=x", "sysctl kernel.domainname=x", "sysctl --sys"],
      },
    },
    timedatectl: {
      ...TIMEDATECTL,
      examples: { allow: ["timedatectl status", "timedatectl"], ask: ["timedatectl set-time 2020-01-01"] },
    },
    hostnamectl: {
      ...HOSTNAMECTL,
      examples: { allow: ["hostnamectl", "hostnamectl status"], ask: ["hostnamectl hostname x"] },
    },
  } satisfies Record<string, ProgramRule>,
  { reads: "files" },
)
