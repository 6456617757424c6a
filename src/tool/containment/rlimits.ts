import type { ToolRlimits } from "./types.ts"

const MiB = 1024 * 1024

/**
 * Limits for every tool process. kubectl and helm (Go) start 10-40 threads, each counting as a
 * process, and map ~1.5 GiB of address space; Bun (stand-ins, scripts) maps ~1 GiB at start.
 */
export const DEFAULT_TOOL_RLIMITS: ToolRlimits = {
  processes: 512,
  addressSpaceBytes: 4096 * MiB,
  openFiles: 1024,
  fileSizeBytes: 1024 * MiB,
}

/**
 * `prlimit` arguments that set each limit (soft and hard, so the tool cannot raise it back) and
 * turn core dumps off: a core file would hold whatever secrets the tool's memory held. Every value
 * is a number dupin chose; nothing here comes from the model.
 */
export function prlimitArgs(prlimit: string, limits: ToolRlimits, withProcesses: boolean): string[] {
  return [
    prlimit,
    ...(withProcesses ? [`--nproc=${limits.processes}`] : []),
    `--as=${limits.addressSpaceBytes}`,
    `--nofile=${limits.openFiles}`,
    `--fsize=${limits.fileSizeBytes}`,
    "--core=0",
    "--",
  ]
}
