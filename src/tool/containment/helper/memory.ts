/**
 * Counts the resident memory of the processes in the helper's sandbox (its /proc is private, so
 * every process listed is a tool's or the helper's). RLIMIT_AS bounds one process; this bounds a
 * request's processes together and all of them in the sandbox (R6: four `tail -c 1G` held 3.7 GB).
 */
import { readdirSync, readFileSync } from "node:fs"

const PAGE_BYTES = 4096

export type ProcEntry = { pid: number; ppid: number; pgrp: number; rssBytes: number }

/** Every process in this pid namespace but the helper and the namespace's init. */
export function listProcesses(): ProcEntry[] {
  const out: ProcEntry[] = []
  let names: string[]
  try {
    names = readdirSync("/proc")
  } catch {
    return out
  }
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      // The command name may hold spaces and parentheses: the fields start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      out.push({
        pid,
        ppid: Number(fields[1]),
        pgrp: Number(fields[2]),
        rssBytes: Number(fields[21]) * PAGE_BYTES,
      })
    } catch {
      // The process ended while we looked.
    }
  }
  return out
}
