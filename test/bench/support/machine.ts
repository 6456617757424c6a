/** What the numbers were measured on. Ratios travel between machines; absolute times do not. */
import { readFileSync } from "node:fs"
import { availableParallelism, loadavg, totalmem } from "node:os"

export type Machine = {
  cpus: number
  cpuModel: string
  memoryGiB: number
  bun: string
  kernel: string
  /** 1-minute load average when sampled: other work on the machine skews every figure. */
  loadAverage: number
}

export function describeMachine(): Machine {
  const cpuinfo = safeRead("/proc/cpuinfo")
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown"
  return {
    cpus: availableParallelism(),
    cpuModel,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    bun: Bun.version,
    kernel: safeRead("/proc/sys/kernel/osrelease").trim() || process.platform,
    loadAverage: Math.round(loadavg()[0]! * 100) / 100,
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}
