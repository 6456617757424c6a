import { scanOptions } from "../options.ts"
import { getopt, type Inner, type ProgramRule, type Wrapper } from "./program.ts"

/**
 * Programs that run another program given in their arguments (`sudo rm -rf /`, `xargs rm -r`,
 * `timeout 5 kubectl exec …`, `watch 'cmd'`, `flock f -c 'cmd'`). Each one's options are scanned
 * by its own grammar to find where the inner command starts, and whether it is an argv or a
 * shell script; the policy classifies that command as well, so a wrapper can never launder a
 * denied command, and the wrapper itself always needs approval.
 */
const argv = (words: string[]): Inner => (words.length > 0 ? { kind: "argv", argv: words } : { kind: "none" })
const POSIX = { stopAtOperand: true }

const GRAMMARS: Record<string, Wrapper> = {
  sudo: {
    options: getopt(
      "AbEeHiKklnPSsVvu:g:C:D:h::p:r:t:U:T:R:",
      [
        "askpass",
        "background",
        "preserve-env?",
        "edit",
        "set-home",
        "login",
        "remove-timestamp",
        "reset-timestamp",
        "list",
        "non-interactive",
        "preserve-groups",
        "stdin",
        "shell",
        "validate",
        "user=",
        "group=",
        "close-from=",
        "chdir=",
        "host=",
        "prompt=",
        "role=",
        "type=",
        "other-user=",
        "command-timeout=",
        "chroot=",
      ],
      POSIX,
    ),
    // `sudo -e FILE` is sudoedit: the operands are files it writes, not a command.
    inner: (operands, options) =>
      options.some((o) => o.name === "-e" || o.name === "--edit")
        ? { kind: "argv", argv: ["sudoedit", ...operands] }
        : argv(operands),
  },
  doas: { options: getopt("nsu:C:", [], { ...POSIX, abbreviations: false }) },
  xargs: {
    options: getopt(
      "0a:d:E:e::I:i::L:l::n:oP:prs:tx",
      [
        "null",
        "arg-file=",
        "delimiter=",
        "eof?",
        "replace?",
        "max-lines?",
        "max-args=",
        "open-tty",
        "max-procs=",
        "interactive",
        "process-slot-var=",
        "no-run-if-empty",
        "max-chars=",
        "show-limits",
        "verbose",
        "exit",
      ],
      POSIX,
    ),
    // xargs alone runs echo; whatever it runs, the input appends arguments, or with -I/-i/
    // --replace is put wherever the replace string stands (the command name, a script).
    inner: (operands, options) => {
      const replace = options.findLast((o) => ["-I", "-i", "--replace"].includes(o.name))
      return {
        kind: "argv",
        argv: operands.length > 0 ? operands : ["echo"],
        appendable: true,
        placeholder: replace === undefined ? undefined : replace.value || "{}",
      }
    },
  },
  timeout: {
    options: getopt("k:s:v", ["preserve-status", "foreground", "kill-after=", "signal=", "verbose"], POSIX),
    leading: 1,
  },
  nice: { options: getopt("n:", ["adjustment="], POSIX) },
  ionice: {
    options: getopt("c:n:p:P:tu:", ["class=", "classdata=", "pid=", "pgid=", "ignore", "uid="], POSIX),
  },
  stdbuf: { options: getopt("i:o:e:", ["input=", "output=", "error="], POSIX) },
  nohup: { options: getopt("", [], POSIX) },
  setsid: { options: getopt("cfw", ["ctty", "fork", "wait"], POSIX) },
  time: {
    options: getopt("af:o:pqv", ["append", "format=", "output=", "portability", "quiet", "verbose"], POSIX),
  },
  chrt: { options: getopt("abdefiopRrT:P:D:mv", [], POSIX), leading: 1 },
  taskset: { options: getopt("acp", ["all-tasks", "cpu-list", "pid"], POSIX), leading: 1 },
  chroot: { options: getopt("", ["groups=", "userspec=", "skip-chdir"], POSIX), leading: 1 },
  unshare: {
    options: getopt(
      "m::u::i::n::p::U::C::T::frcR:w:S:G:",
      [
        "mount?",
        "uts?",
        "ipc?",
        "net?",
        "pid?",
        "user?",
        "cgroup?",
        "time?",
        "fork",
        "map-user=",
        "map-group=",
        "map-root-user",
        "map-current-user",
        "map-auto",
        "map-users=",
        "map-groups=",
        "kill-child?",
        "mount-proc?",
        "propagation=",
        "setgroups=",
        "keep-caps",
        "root=",
        "wd=",
        "setuid=",
        "setgid=",
        "monotonic=",
        "boottime=",
      ],
      POSIX,
    ),
  },
  nsenter: {
    options: getopt(
      "at:m::u::i::n::p::C::U::T::S:G:r::w::FZ",
      [
        "all",
        "target=",
        "mount?",
        "uts?",
        "ipc?",
        "net?",
        "pid?",
        "cgroup?",
        "user?",
        "time?",
        "setuid=",
        "setgid=",
        "preserve-credentials",
        "root?",
        "wd?",
        "wdns=",
        "no-fork",
        "follow-context",
      ],
      POSIX,
    ),
  },
  runuser: {
    options: getopt("u:g:G:lmpfs:c:", ["user=", "group=", "login", "command=", "shell=", "pty"], POSIX),
    // `runuser -c CMD` hands CMD to a shell; `runuser -u USER cmd…` runs an argv.
    inner: (operands, options) => {
      const command = options.find((o) => o.name === "-c" || o.name === "--command")?.value
      return command === undefined ? argv(operands) : { kind: "script", script: command }
    },
  },
  flock: {
    options: getopt(
      "sxunw:E:oFc:",
      [
        "shared",
        "exclusive",
        "unlock",
        "nonblock",
        "timeout=",
        "conflict-exit-code=",
        "close",
        "no-fork",
        "verbose",
        "command=",
      ],
      POSIX,
    ),
    // `flock FILE -c 'cmd'` or `flock -c 'cmd' FILE` run a shell; `flock FILE cmd…` an argv.
    inner: (operands, options) => {
      const command = options.find((o) => o.name === "-c" || o.name === "--command")?.value
      if (command !== undefined) return { kind: "script", script: command }
      const [, first, second] = operands
      if (first === "-c" || first === "--command") return { kind: "script", script: second ?? "" }
      return argv(operands.slice(1))
    },
  },
  // watch hands its joined arguments to `sh -c` unless -x.
  watch: {
    options: getopt(
      "bcd::eghn:pqtvwx",
      [
        "beep",
        "color",
        "no-color",
        "differences?",
        "errexit",
        "chgexit",
        "equexit=",
        "interval=",
        "precise",
        "no-title",
        "no-wrap",
        "exec",
      ],
      POSIX,
    ),
    inner: (operands, options) =>
      options.some((o) => o.name === "-x" || o.name === "--exec")
        ? argv(operands)
        : { kind: "script", script: operands.join(" ") },
  },
  strace: {
    options: getopt("AbcCdDfFhiknqrtTvVwxyYzZa:b:e:E:I:o:O:p:P:s:S:u:U:X:", [], {
      ...POSIX,
      abbreviations: false,
    }),
  },
  ltrace: {
    options: getopt("bcCfhiLrStTVa:A:D:e:F:l:n:o:p:s:u:w:x:", [], { ...POSIX, abbreviations: false }),
  },
  busybox: { options: getopt("", [], POSIX) },
  command: { options: getopt("pvV", [], { ...POSIX, abbreviations: false }) },
  builtin: { options: getopt("", [], POSIX) },
  exec: { options: getopt("cla:", [], { ...POSIX, abbreviations: false }) },
}

/**
 * Programs that run a command given in their arguments whose option grammar dupin does not model:
 * every suffix of the arguments, and every argument as a shell script, is classified.
 */
const OPAQUE_RUNNERS = (
  "pkexec parallel setpriv prlimit systemd-run chpst fakeroot firejail bwrap cgexec numactl valgrind " +
  "perf catchsegv rlwrap torsocks proxychains proxychains4 dbus-launch xvfb-run entr tmux screen at batch " +
  "start-stop-daemon run-parts toybox sg ssh unbuffer chronic daemonize capsh sshpass"
).split(" ")

const opaque = (name: string): ProgramRule => ({
  wraps: "opaque",
  examples: { ask: [`${name} uptime`], deny: [`${name} rm -r /tmp/x`] },
})

/** What a wrapper runs inside, by its own option grammar. */
export function wrappedCommand(wraps: Wrapper | "opaque", args: readonly string[]): Inner {
  if (wraps === "opaque") return { kind: "unknown", args }
  const scan = scanOptions(args, wraps.options)
  if (!scan.ok) return { kind: "unknown", args }
  if (wraps.inner) return wraps.inner(scan.operands, scan.options)
  return argv(scan.operands.slice(wraps.leading ?? 0))
}

const TRACE_OUTPUT = ["-o", "--output"]
/** script's logs: files it writes. */
const SCRIPT_LOGS = ["-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing"]

export const WRAPPERS: Record<string, ProgramRule> = {
  sudo: {
    wraps: GRAMMARS.sudo!,
    examples: {
      ask: ["sudo uptime"],
      deny: ["sudo rm -rf /", "sudo -e /etc/hosts", "sudo sudo sudo sudo sudo sudo id"],
    },
  },
  doas: { wraps: GRAMMARS.doas!, examples: { ask: ["doas uptime"], deny: ["doas rm -r /tmp/x"] } },
  xargs: {
    wraps: GRAMMARS.xargs!,
    examples: {
      ask: ["xargs echo", "xargs -0 echo"],
      // A reader fed names by its input may be fed a credential's.
      deny: [
        "xargs -n1 uptime",
        "xargs -I{} kubectl delete ns {}",
        "echo -r /tmp/x | xargs rm",
        "xargs kubectl describe",
      ],
    },
  },
  timeout: {
    wraps: GRAMMARS.timeout!,
    examples: { ask: ["timeout 5 uptime"], deny: ["timeout 5 kubectl exec p -- sh"] },
  },
  nice: { wraps: GRAMMARS.nice!, examples: { ask: ["nice -n 5 uptime"], deny: ["nice -5 rm -r /tmp/x"] } },
  ionice: {
    wraps: GRAMMARS.ionice!,
    examples: { ask: ["ionice -c 3 uptime"], deny: ["ionice -c 3 rm -r /tmp/x"] },
  },
  stdbuf: {
    wraps: GRAMMARS.stdbuf!,
    examples: { ask: ["stdbuf -oL uptime"], deny: ["stdbuf -oL rm -r /tmp/x"] },
  },
  nohup: { wraps: GRAMMARS.nohup!, examples: { ask: ["nohup uptime"], deny: ["nohup rm -r /tmp/x"] } },
  setsid: { wraps: GRAMMARS.setsid!, examples: { ask: ["setsid uptime"], deny: ["setsid rm -r /tmp/x"] } },
  time: {
    wraps: GRAMMARS.time!,
    outputOptions: TRACE_OUTPUT,
    // A pipeline cannot start with `time` (the shell keyword); inside a wrapper it is the program.
    examples: { ask: ["nice time uptime"], deny: ["nice time rm -r /tmp/x", "nice time -o /etc/x uptime"] },
  },
  chrt: { wraps: GRAMMARS.chrt!, examples: { ask: ["chrt 1 uptime"], deny: ["chrt 1 rm -r /tmp/x"] } },
  taskset: {
    wraps: GRAMMARS.taskset!,
    examples: { ask: ["taskset 1 uptime"], deny: ["taskset 1 rm -r /tmp/x"] },
  },
  chroot: {
    wraps: GRAMMARS.chroot!,
    examples: { ask: ["chroot /srv uptime"], deny: ["chroot /srv rm -r /tmp/x"] },
  },
  unshare: {
    wraps: GRAMMARS.unshare!,
    examples: { ask: ["unshare -n uptime"], deny: ["unshare -n rm -r /tmp/x"] },
  },
  nsenter: {
    wraps: GRAMMARS.nsenter!,
    examples: { ask: ["nsenter -t 1 -n uptime"], deny: ["nsenter -t 1 rm -r /tmp/x"] },
  },
  runuser: {
    wraps: GRAMMARS.runuser!,
    examples: { ask: ["runuser -u nobody uptime"], deny: ["runuser -u nobody -c 'rm -r /tmp/x'"] },
  },
  flock: {
    wraps: GRAMMARS.flock!,
    examples: {
      ask: ["flock /tmp/l uptime"],
      deny: ["flock /tmp/l -c 'rm -r /tmp/x'", "flock -c 'rm -r /tmp/x' /tmp/l"],
    },
  },
  watch: {
    wraps: GRAMMARS.watch!,
    examples: { ask: ["watch -n 1 uptime"], deny: ["watch -n 1 'rm -r /tmp/x'", "watch -x rm -r /tmp/x"] },
  },
  strace: {
    wraps: GRAMMARS.strace!,
    outputOptions: TRACE_OUTPUT,
    examples: {
      ask: ["strace -f uptime"],
      deny: ["strace -o /etc/ld.so.preload true", "strace -o/etc/x true"],
    },
  },
  ltrace: {
    wraps: GRAMMARS.ltrace!,
    outputOptions: TRACE_OUTPUT,
    examples: { ask: ["ltrace uptime"], deny: ["ltrace -o /etc/x uptime"] },
  },
  busybox: {
    wraps: GRAMMARS.busybox!,
    examples: { ask: ["busybox uptime"], deny: ["busybox rm -r /tmp/x"] },
  },
  command: {
    wraps: GRAMMARS.command!,
    examples: { ask: ["command -v uptime"], deny: ["command rm -r /tmp/x"] },
  },
  builtin: {
    wraps: GRAMMARS.builtin!,
    examples: { ask: ["builtin uptime"], deny: ["builtin rm -r /tmp/x"] },
  },
  exec: { wraps: GRAMMARS.exec!, examples: { ask: ["exec uptime"], deny: ["exec rm -r /tmp/x"] } },
  // Programs whose grammar dupin does not model: any suffix of their words may be the command
  // (gdb is with the interpreters).
  ...Object.fromEntries(OPAQUE_RUNNERS.map((name) => [name, opaque(name)])),
  script: { ...opaque("script"), outputOptions: SCRIPT_LOGS },
}
