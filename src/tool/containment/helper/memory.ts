/**
 * Counts the resident memory of one run's processes from its /proc (private to the run, so every
 * process listed is the run's). RLIMIT_AS bounds one process; this bounds a request's processes
 * together and all of them in the sandbox (R6: four `tail -c 1G` held 3.7 GB).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs"

const PAGE_BYTES = 4096

export type ProcEntry = { pid: number; ppid: number; pgrp: number; rssBytes: number }

/**
 * Every process under `root` (a /proc); with `pidNs`, only those in that pid namespace (a host
 * /proc, where a fresh one cannot be mounted).
 */
export function listProcesses(root = "/proc", pidNs?: string): ProcEntry[] {
  const out: ProcEntry[] = []
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return out
  }
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 0) continue
    try {
      if (pidNs && readlinkSync(`${root}/${pid}/ns/pid`) !== pidNs) continue
      const stat = readFileSync(`${root}/${pid}/stat`, "utf8")
      // The command name may hold spaces and parentheses: the fields start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      out.push({
        pid,
        ppid: Number(fields[1]),
        pgrp: Number(fields[2]),
        rssBytes: Number(fields[21]) * PAGE_BYTES,
      })
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return out
}
