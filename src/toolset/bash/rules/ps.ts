import { allow, approve, deny, type Verdict } from "../verdict.ts"
import type { ProgramRule } from "./program.ts"

/**
 * procps `ps` has three option styles in one line: UNIX groups (`-ef`), BSD groups without a dash
 * (`aux`) and GNU long options (`--sort`). Its one leak is BSD `e`, which appends every process's
 * environment to its command line (dupin's provider keys with containment off).
 *
 * The trap: when the line fails to parse as UNIX options (an unknown letter such as `-x`, a user or
 * TTY that does not exist, an unknown format name, conflicting formats), procps parses the whole
 * line again as BSD options, where a dash is ignored: `ps -ef -x`, `ps -ue`, `ps -e -u nobody_x`
 * print environments although no word is the BSD `e`. So a line whose reparse would see an `e`
 * runs without approval only when dupin can tell the UNIX parse succeeds (see `certain`).
 */
const BSD_SAFE = /^[auxwfljsvrTchnSHmX]+$/
/** UNIX letters that take a value, attached (`-p1`) or as the next word. */
const UNIX_VALUE = "CGgOopqstUuk"
/** GNU long options that take a value (`--sort=x`, `--sort x`). */
const GNU_VALUE = new Set([
  "pid",
  "ppid",
  "quick-pid",
  "sid",
  "sort",
  "format",
  "cols",
  "columns",
  "width",
  "rows",
  "lines",
  "user",
  "User",
  "group",
  "Group",
  "tty",
])

type Option = { name: string; value: string | undefined; detached: boolean }
type Parsed = { unix: { flags: string; option?: Option }[]; gnu: Option[]; pids: string[]; bsd: string[] }

function classifyPs(args: readonly string[]): Verdict {
  const parsed = parse(args)
  for (const word of parsed.bsd) {
    if (word.includes("e")) return deny("ps e prints process environments (provider keys)")
    if (!BSD_SAFE.test(word)) return approve(`ps ${word} is not known to be read-only`)
  }
  if (rereadShowsEnvironments(parsed) && !certain(parsed))
    return approve(
      `ps ${args.join(" ")}: if ps cannot parse these as UNIX options it rereads them as BSD options, ` +
        "where e prints every process's environment",
    )
  return allow("ps lists processes")
}

export const PS: Record<string, ProgramRule> = {
  ps: {
    classify: classifyPs,
    examples: {
      allow: ["ps aux", "ps -ef", "ps -C kube-apiserver -o pid"],
      ask: ["ps o pid,cmd", "ps -ef -x"],
      deny: ["ps auxeww", "ps -eF e"],
    },
  },
}

function parse(args: readonly string[]): Parsed {
  const parsed: Parsed = { unix: [], gnu: [], pids: [], bsd: [] }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = arg.slice(2, eq === -1 ? undefined : eq)
      const detached = eq === -1 && GNU_VALUE.has(name)
      const value = eq !== -1 ? arg.slice(eq + 1) : detached ? args[++i] : undefined
      parsed.gnu.push({ name, value, detached })
    } else if (/^-[A-Za-z]/.test(arg)) {
      const at = [...arg.slice(1)].findIndex((c) => UNIX_VALUE.includes(c)) + 1
      if (at === 0) parsed.unix.push({ flags: arg.slice(1) })
      else {
        const attached = arg.slice(at + 1)
        const value = attached || args[++i]
        const option = { name: arg[at]!, value, detached: !attached }
        parsed.unix.push({ flags: arg.slice(1, at), option })
      }
    } else if (/^-?\d/.test(arg)) parsed.pids.push(arg)
    else parsed.bsd.push(arg)
  }
  return parsed
}

/** Whether a BSD reparse of the line would meet an `e`: in a dash group, or in a word read as a value. */
function rereadShowsEnvironments(parsed: Parsed): boolean {
  return parsed.unix.some(
    ({ flags, option }) =>
      flags.includes("e") ||
      (option !== undefined && !option.detached && option.value?.includes("e")) ||
      // A separate value word is a group of its own to the BSD parser when it starts with a letter.
      (option?.detached === true && /^[-A-Za-z]/.test(option.value ?? "") && option.value!.includes("e")),
  )
}

/** UNIX flags that parse alone and in any group, apart from the conflicts below. */
const CERTAIN_FLAGS = /^[AadefFlHjwcLTm]*$/
const CONFLICTS = ["LT", "HL", "Hm", "HT", "lm"]
/** Format flags: each conflicts with `-o`/`-O` (procps: "conflicting format options"). */
const FORMAT_FLAGS = /[fFljc]/
const LIST = /^\d+(,\d+)*$/
const NAMES = /^[\w.:@+-]+(,[\w.:@+-]+)*$/

/** Whether procps parses the line as UNIX options for sure, so it never reparses it as BSD. */
function certain(parsed: Parsed): boolean {
  if (parsed.bsd.length > 0 || !parsed.pids.every((p) => /^\d+$/.test(p))) return false
  const flags = parsed.unix.map((u) => u.flags).join("")
  if (!CERTAIN_FLAGS.test(flags)) return false
  if (CONFLICTS.some(([a, b]) => flags.includes(a!) && flags.includes(b!))) return false
  // Thread views (-L, -T, -m) and the process tree (--forest) do not combine.
  if (/[LTm]/.test(flags) && parsed.gnu.some((o) => o.name === "forest")) return false
  const options = [...parsed.unix.flatMap((u) => (u.option ? [u.option] : [])), ...parsed.gnu]
  const formats = options.filter((o) => ["o", "O", "format"].includes(o.name))
  if (formats.length > 0 && (FORMAT_FLAGS.test(flags) || new Set(formats.map((o) => o.name)).size > 1))
    return false
  return options.every((o) =>
    o.value === undefined ? CERTAIN_GNU_FLAGS.has(o.name) : valueParses(o.name, o.value),
  )
}

const CERTAIN_GNU_FLAGS = new Set(["forest", "headers", "no-headers", "deselect", "cumulative"])

function valueParses(name: string, value: string): boolean {
  switch (name) {
    case "o":
    case "O":
    case "format":
      return value.split(",").every((item, i, all) => formatItem(item, i === all.length - 1))
    case "sort":
      return value.split(",").every((key) => PS_FIELDS.has(key.replace(/^[+-]/, "")))
    // -q/--quick-pid combine with no other selection, sort or tree: not listed, so approved.
    case "p":
    case "s":
    case "pid":
    case "ppid":
    case "sid":
    // Numeric ids only: a name that does not exist on this host is a parse error.
    case "u":
    case "U":
    case "g":
    case "G":
    case "user":
    case "User":
    case "group":
    case "Group":
      return LIST.test(value)
    case "C":
      return NAMES.test(value)
    case "cols":
    case "columns":
    case "width":
    case "rows":
    case "lines":
      return /^[1-9]\d{0,4}$/.test(value)
    default:
      return false
  }
}

/** `pid`, `pid:8`, and on the last item `pid=HEADER` (the header runs to the end of the word). */
function formatItem(item: string, last: boolean): boolean {
  const eq = item.indexOf("=")
  if (eq !== -1) return last && PS_FIELDS.has(item.slice(0, eq))
  return PS_FIELDS.has(item.replace(/:\d{1,3}$/, ""))
}

/** Format and sort names procps 3.3 and 4 both know (test/toolset/bash/ps-real.test.ts runs each). */
export const PS_FIELDS = new Set([
  "%cpu",
  "%mem",
  "args",
  "cmd",
  "comm",
  "command",
  "cputime",
  "egid",
  "egroup",
  "etime",
  "etimes",
  "euid",
  "euser",
  "f",
  "flags",
  "gid",
  "group",
  "lstart",
  "lwp",
  "ni",
  "nice",
  "nlwp",
  "pcpu",
  "pgid",
  "pgrp",
  "pid",
  "pmem",
  "ppid",
  "pri",
  "psr",
  "rgid",
  "rgroup",
  "rss",
  "rssize",
  "ruid",
  "ruser",
  "s",
  "sess",
  "sid",
  "size",
  "start",
  "start_time",
  "stat",
  "state",
  "stime",
  "sz",
  "tid",
  "time",
  "tname",
  "tt",
  "tty",
  "ucmd",
  "ucomm",
  "uid",
  "user",
  "vsize",
  "vsz",
  "wchan",
])
