import { type OptionSpec, scanOptions } from "../options.ts"
import { getopt } from "./program.ts"

/**
 * Programs that run another program given in their arguments (`sudo rm -rf /`, `xargs rm -r`,
 * `timeout 5 kubectl exec …`, `watch 'cmd'`, `flock f -c 'cmd'`). Each one's options are scanned
 * by its own grammar to find where the inner command starts, and whether it is an argv or a
 * shell script; the policy classifies that command as well, so a wrapper can never launder a
 * denied command, and the wrapper itself always needs approval.
 */
export type Inner =
  /**
   * The inner argv; `appendable`: the input adds arguments to it (xargs); `placeholder`: the
   * input replaces this string wherever it stands (`xargs -I{}`).
   */
  | { kind: "argv"; argv: string[]; appendable?: boolean; placeholder?: string }
  /** A shell script, as `sh -c` would run it. */
  | { kind: "script"; script: string }
  /** Nothing runs inside (or only an interactive shell). */
  | { kind: "none" }
  /** The options could not be read: any suffix of the arguments, or any one argument as a script, may be the command. */
  | { kind: "unknown"; args: readonly string[] }

type WrapperSpec = {
  options: OptionSpec
  /** Operands before the command (timeout's duration, chroot's new root, flock's lock file). */
  leading?: number
  /** The inner command from the scan; default: the operands after `leading`. */
  inner?: (operands: string[], options: Array<{ name: string; value: string | undefined }>) => Inner
}

const argv = (words: string[]): Inner => (words.length > 0 ? { kind: "argv", argv: words } : { kind: "none" })
const POSIX = { stopAtOperand: true }

const WRAPPERS: Record<string, WrapperSpec> = {
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
const OPAQUE_RUNNERS = new Set(
  (
    "pkexec parallel setpriv prlimit systemd-run chpst fakeroot firejail bwrap cgexec numactl valgrind " +
    "perf catchsegv rlwrap torsocks proxychains proxychains4 dbus-launch xvfb-run entr tmux screen at batch " +
    "start-stop-daemon run-parts toybox sg script ssh gdb unbuffer chronic daemonize capsh sshpass"
  ).split(" "),
)

export function isWrapper(name: string): boolean {
  return Object.hasOwn(WRAPPERS, name) || OPAQUE_RUNNERS.has(name)
}

/** What `name args…` runs inside, by the wrapper's own option grammar. */
export function wrappedCommand(name: string, args: readonly string[]): Inner {
  // pidstat runs a program only with -e; everything after -e is that program.
  if (name === "pidstat") {
    const e = args.indexOf("-e")
    return e === -1 ? { kind: "none" } : argv(args.slice(e + 1))
  }
  const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined
  if (!spec) return { kind: "unknown", args }
  const scan = scanOptions(args, spec.options)
  if (!scan.ok) return { kind: "unknown", args }
  if (spec.inner) return spec.inner(scan.operands, scan.options)
  return argv(scan.operands.slice(spec.leading ?? 0))
}

/** Shells: the script after `-c` is parsed and classified like a command of its own. */
export const SHELLS = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "fish",
  "ash",
  "csh",
  "tcsh",
  "su",
])

/** Interpreters and evaluators run code the policy cannot see through. */
export const INTERPRETERS = new Set([
  "eval",
  "source",
  ".",
  "python",
  "python2",
  "python3",
  "perl",
  "ruby",
  "node",
  "nodejs",
  "bun",
  "deno",
  "php",
  "lua",
  "tclsh",
  "wish",
  "Rscript",
  "java",
  "jshell",
  "expect",
  "osascript",
  "pwsh",
  "powershell",
  "gdb",
])

/**
 * The script a shell runs: `-c` may be grouped (`-lc`, `-ec`) and the script is the first
 * operand after the options (`bash -c -- 'cmd'`, `bash -c -x 'cmd'`). `su -c CMD` takes it as
 * the option's value. Undefined when the shell reads a script file or stdin.
 */
export function shellScript(name: string, args: readonly string[]): string | undefined {
  if (name === "su") {
    const at = args.findIndex((a) => /^(-c|--command)(=|$)/.test(a) || /^-[^-]*c/.test(a))
    if (at === -1) return undefined
    const arg = args[at]!
    if (arg.startsWith("--command=")) return arg.slice(10)
    // `-c CMD`, or attached: `-cCMD`, `-lcCMD`.
    const attached = arg.startsWith("--") ? "" : arg.slice(arg.indexOf("c") + 1)
    return attached || args[at + 1]
  }
  let hasC = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--" || arg === "-") return hasC ? args[i + 1] : undefined
    if (/^[-+]o$/.test(arg) || arg === "-O" || arg === "+O" || arg === "--rcfile" || arg === "--init-file") {
      i++
      continue
    }
    if (/^[-+][A-Za-z]+$/.test(arg)) {
      if (arg.startsWith("-") && arg.includes("c")) hasC = true
      continue
    }
    if (arg.startsWith("--")) continue
    return hasC ? arg : undefined
  }
  return undefined
}
