import { programTexts } from "./filters.ts"

/**
 * Programs that create, change or delete the files named in their arguments. Any of them touching
 * /etc is refused even with approval (see policy.ts); `rm -r` is refused anywhere.
 */
export const WRITERS = new Set([
  "tee",
  "cp",
  "mv",
  "ln",
  "install",
  "rm",
  "rmdir",
  "mkdir",
  "touch",
  "chmod",
  "chown",
  "chgrp",
  "truncate",
  "shred",
  "rsync",
  "dd",
  "unlink",
  "chattr",
  "setfacl",
  "mknod",
  "mkfifo",
  "patch",
  "tar",
  "cpio",
  "unzip",
  "curl",
  "wget",
  "scp",
  "sftp",
  "vi",
  "vim",
  "nano",
  "ed",
  "ex",
  "emacs",
  "sponge",
  "useradd",
  "usermod",
  "userdel",
  "groupadd",
  "passwd",
  "chpasswd",
  "visudo",
  "sudoedit",
  "update-alternatives",
  "systemd-tmpfiles",
])

/** `rm -r`, `rm -Rf`, `rm --recursive`, `rm -fr`: recursive deletion. */
export function isRecursiveRemove(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") break
    if (/^--recursive$|^--r(e(c(u(r(s(i(ve?)?)?)?)?)?)?)?$/.test(arg)) return true
    if (/^-[A-Za-z]*[rR]/.test(arg) && !arg.startsWith("--")) return true
  }
  return false
}

/** Options whose value is a file the program writes (a trace, a log, a dump, a cursor). */
const OUTPUT_OPTIONS: Record<string, readonly string[]> = {
  strace: ["-o", "--output"],
  ltrace: ["-o", "--output"],
  time: ["-o", "--output"],
  ss: ["-D", "--diag"],
  journalctl: ["--cursor-file"],
  kubectl: ["--log-file", "--log_file", "--profile-output", "--log-dir", "--log_dir", "--cache-dir"],
  script: ["-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing"],
  gawk: ["--dump-variables", "--profile", "-d", "-p"],
  wget: ["-O", "--output-document", "-o", "--output-file", "-a", "--append-output"],
}

/**
 * The files `name` would write through an output option, however the value is attached
 * (`-o F`, `-oF`, `--output=F`): the policy refuses them under /etc even when approved.
 */
export function outputPaths(name: string, args: readonly string[]): string[] {
  const options = Object.hasOwn(OUTPUT_OPTIONS, name) ? OUTPUT_OPTIONS[name]! : []
  const paths: string[] = []
  for (const [i, arg] of args.entries()) {
    for (const option of options) {
      if (arg === option && args[i + 1] !== undefined) paths.push(args[i + 1]!)
      else if (option.startsWith("--") && arg.startsWith(`${option}=`))
        paths.push(arg.slice(option.length + 1))
      else if (!option.startsWith("--") && arg.startsWith(option) && arg.length > option.length)
        paths.push(arg.slice(option.length))
    }
  }
  return paths
}

/**
 * Files a program writes that are named inside its program text or by position, not by an
 * option: sed's `w FILE` command and `s///w FILE` flag, awk's `print > "FILE"` and `| "cmd"`,
 * `uniq IN OUT`. Conservative: every word of a program text that has a write construct counts,
 * so the policy can refuse the ones under /etc even when a human approved.
 */
export function textWritePaths(name: string, args: readonly string[]): string[] {
  if (name === "uniq") return args.filter((a) => !a.startsWith("-")).slice(1)
  const construct = SED.has(name) ? /[wW]/ : AWK.has(name) ? /[>|]/ : undefined
  if (!construct) return []
  return programTexts(name, args)
    .filter((text) => construct.test(text))
    .flatMap((text) => text.split(/[\s;'"{}()<>|,]+|(?<![A-Za-z])[wW]/))
}

const SED = new Set(["sed", "gsed"])
const AWK = new Set(["awk", "gawk", "mawk", "nawk"])
