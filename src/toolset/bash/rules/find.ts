import { allow, approve, deny, type Verdict } from "../verdict.ts"
import type { ProgramRule } from "./program.ts"

/**
 * find lists names: its tests and `-print*` only read. `-exec` and friends run commands, `-fprint*`
 * and `-delete` write: refused even with approval. Any other primary asks.
 */
/** find primaries that only test or print; -exec and friends run commands, -fprint* and -delete write. */
const FIND_TESTS = new Set(
  (
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -size " +
    "-mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -used -user -group -uid -gid -nouser " +
    "-nogroup -perm -links -inum -samefile -empty -readable -writable -executable -fstype -context " +
    "-maxdepth -mindepth -xdev -mount -depth -follow -prune -print -print0 -printf -ls -true -false -not " +
    "-a -and -o -or -quit -daystart -noleaf -regextype -ignore_readdir_race -noignore_readdir_race " +
    "-warn -nowarn ! ( ) ,"
  ).split(" "),
)
/** Primaries followed by one value word. */
const FIND_VALUE = new Set(
  (
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -size " +
    "-mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -used -user -group -uid -gid -perm " +
    "-links -inum -samefile -fstype -context -maxdepth -mindepth -printf -regextype"
  ).split(" "),
)
const FIND_DENY = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/

function classifyFind(args: readonly string[]): Verdict {
  const bad = args.find((a) => FIND_DENY.test(a))
  if (bad) return deny(`find ${bad} runs commands or changes files`)
  let i = 0
  // Leading options: -H -L -P, -D debugopts, -Olevel.
  for (; i < args.length && /^-[HLP]$|^-O\d$|^-D$/.test(args[i]!); i++) if (args[i] === "-D") i++
  // Start points: everything up to the first word that starts an expression.
  while (i < args.length && !/^[-!(),]/.test(args[i]!)) i++
  for (; i < args.length; i++) {
    const word = args[i]!
    if (/^-newer[aBcmt][aBcmt]$/.test(word)) {
      i++
      continue
    }
    if (!FIND_TESTS.has(word)) return approve(`find ${word} is not known to be read-only`)
    if (FIND_VALUE.has(word)) i++
  }
  return allow("find lists names")
}

export const FIND: Record<string, ProgramRule> = {
  find: {
    classify: classifyFind,
    examples: {
      allow: ["find /var/log -name '*.log' -mtime -1", "find / -xdev -newermt 2020-01-01 -name x"],
      ask: ["find . -files0-from /tmp/x"],
      deny: ["find / -delete", "find . -exec rm {} +"],
    },
  },
}
