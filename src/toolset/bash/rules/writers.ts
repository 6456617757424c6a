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
    .flatMap((text) => [
      ...text.split(/[\s;'"{}()<>|,]+|(?<![A-Za-z])[wW]/),
      ...wholeNames(text, SED.has(name) ? SED_NAME : AWK_NAME),
    ])
}

/** A sed `w`/`W` file name runs to the end of its line; an awk one is a quoted string. */
const SED_NAME = /(?<![A-Za-z])[wW][ \t]*([^\n]+)/g
const AWK_NAME = /"((?:[^"\\\n]|\\.)*)"/g
/** Whole names checked per program text; a text with more write-like spots than this is refused. */
const MAX_WHOLE_NAMES = 32

/**
 * The fragments above split a name wherever a `w` or a space could end one, so a name that holds
 * either (`/srv/etc-0wk/x` bind-mounted from /etc, `"/tmp/a b/x"`) was only seen in pieces, none
 * of which resolves to /etc. The whole candidates are checked too (overlapping matches included:
 * each `w` may be where the command is); past the cap the text counts as writing under /etc.
 */
function wholeNames(text: string, pattern: RegExp): string[] {
  const names = new Set<string>()
  let spots = 0
  for (let from = 0; from < text.length; ) {
    pattern.lastIndex = from
    const match = pattern.exec(text)
    if (!match) break
    if (++spots > MAX_WHOLE_NAMES) return ["/etc/(too many write-like spots to check)"]
    const name = match[1] ?? ""
    names.add(name).add(name.trimEnd())
    from = match.index + 1
  }
  return [...names]
}

const SED = new Set(["sed", "gsed"])
const AWK = new Set(["awk", "gawk", "mawk", "nawk"])
