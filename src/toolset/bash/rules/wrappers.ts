/**
 * Programs that run another program given in their arguments (`sudo rm -rf /`, `xargs rm -r`,
 * `timeout 5 kubectl exec …`). The policy classifies the inner command as well, so a wrapper can
 * never launder a denied command; the wrapper itself always needs approval.
 */
type WrapperSpec = {
  /** Options whose value is the next word when given separately. */
  valueOptions: string[]
  /** Positional words before the command (timeout's duration, chrt's priority). */
  leading: number
}

const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    valueOptions: [
      "-u",
      "-g",
      "-C",
      "-D",
      "-h",
      "-p",
      "-r",
      "-t",
      "-U",
      "-T",
      "--user",
      "--group",
      "--chdir",
      "--prompt",
    ],
    leading: 0,
  },
  doas: { valueOptions: ["-u", "-C"], leading: 0 },
  xargs: {
    valueOptions: [
      "-a",
      "-d",
      "-E",
      "-I",
      "-L",
      "-n",
      "-P",
      "-s",
      "--arg-file",
      "--delimiter",
      "--max-args",
      "--max-procs",
      "--max-chars",
    ],
    leading: 0,
  },
  timeout: { valueOptions: ["-s", "-k", "--signal", "--kill-after"], leading: 1 },
  nice: { valueOptions: ["-n", "--adjustment"], leading: 0 },
  ionice: { valueOptions: ["-c", "-n", "-p", "--class", "--classdata"], leading: 0 },
  stdbuf: { valueOptions: ["-i", "-o", "-e"], leading: 0 },
  nohup: { valueOptions: [], leading: 0 },
  setsid: { valueOptions: [], leading: 0 },
  time: { valueOptions: ["-f", "-o", "--format", "--output"], leading: 0 },
  chrt: { valueOptions: [], leading: 1 },
  taskset: { valueOptions: [], leading: 1 },
  watch: { valueOptions: ["-n", "--interval", "-d"], leading: 0 },
  strace: {
    valueOptions: ["-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-b", "-a", "-O", "-S", "-X"],
    leading: 0,
  },
  ltrace: { valueOptions: ["-o", "-e", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-F", "-l"], leading: 0 },
  chroot: { valueOptions: ["--userspec", "--groups"], leading: 1 },
  nsenter: { valueOptions: ["-t", "--target", "-S", "-G", "--setuid", "--setgid"], leading: 0 },
  unshare: { valueOptions: [], leading: 0 },
  runuser: { valueOptions: ["-u", "-g", "-G", "--user", "--group"], leading: 0 },
  flock: { valueOptions: ["-w", "-E", "--timeout", "--conflict-exit-code"], leading: 1 },
  busybox: { valueOptions: [], leading: 0 },
  command: { valueOptions: [], leading: 0 },
  builtin: { valueOptions: [], leading: 0 },
  exec: { valueOptions: ["-a"], leading: 0 },
}

export function isWrapper(name: string): boolean {
  return Object.hasOwn(WRAPPERS, name)
}

/** The wrapped argv, or an empty array when there is none (xargs alone runs `echo`). */
export function wrappedCommand(name: string, args: readonly string[]): string[] {
  const spec = WRAPPERS[name]
  if (!spec) return []
  let i = 0
  for (; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      i++
      break
    }
    if (!arg.startsWith("-") || arg === "-") break
    if (spec.valueOptions.includes(arg)) i++
  }
  return args.slice(i + spec.leading)
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

/** The `-c` script of a shell invocation, if any (`bash -lc 'x'`, `sh -c x`). */
export function shellScript(args: readonly string[]): string | undefined {
  const index = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a))
  return index === -1 ? undefined : args[index + 1]
}
