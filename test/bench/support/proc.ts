/**
 * Reads a process's memory and CPU from /proc (Linux). Peak RSS is the kernel's VmHWM, which
 * catches spikes a sampler would miss; CPU is utime + stime of the process itself (children that
 * were reaped are counted separately, in cutime/cstime).
 */
import { readdirSync, readFileSync } from "node:fs"

const CLOCK_TICKS = 100 // sysconf(_SC_CLK_TCK) on every Linux we run on

export type ProcSample = { rssKb: number; hwmKb: number; cpuSeconds: number; childCpuSeconds: number }

export function sampleProc(pid: number): ProcSample {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN)
  // Fields after the command name (which may contain spaces) start at ") ".
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  // fields[0] is field 3 (state); utime is field 14, stime 15, cutime 16, cstime 17.
  const at = (field: number) => Number(fields[field - 3])
  return {
    rssKb: kb("VmRSS"),
    hwmKb: kb("VmHWM"),
    cpuSeconds: (at(14) + at(15)) / CLOCK_TICKS,
    childCpuSeconds: (at(16) + at(17)) / CLOCK_TICKS,
  }
}

export function mib(kb: number): number {
  return kb / 1024
}

/**
 * Resident memory of the processes running one of `programs` (by /proc comm) at or below `pid`,
 * not counting their own descendants (a fork shares its parent's pages: counted twice otherwise).
 */
export function treeRssKb(pid: number, programs: readonly string[]): number {
  let total = 0
  const queue = [pid]
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    try {
      const comm = readFileSync(`/proc/${next}/comm`, "utf8").trim()
      if (programs.includes(comm)) {
        total += sampleProc(next).rssKb
        continue
      }
      for (const tid of readdirSync(`/proc/${next}/task`)) {
        const children = readFileSync(`/proc/${next}/task/${tid}/children`, "utf8").trim()
        if (children) queue.push(...children.split(" ").map(Number))
      }
    } catch {
      // Gone while we looked.
    }
  }
  return total
}

/**
 * CPU (utime+stime) of `pid` and every live process below it, each its own time only: a tool
 * process the sandbox helper reaped counts in the helper's cutime, which is left out, as a
 * floor's tool children are.
 */
export function treeCpuSeconds(pid: number): number {
  let total = 0
  const queue = [pid]
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    try {
      total += sampleProc(next).cpuSeconds
      for (const tid of readdirSync(`/proc/${next}/task`)) {
        const children = readFileSync(`/proc/${next}/task/${tid}/children`, "utf8").trim()
        if (children) queue.push(...children.split(" ").map(Number))
      }
    } catch {
      // Gone while we looked.
    }
  }
  return total
}
