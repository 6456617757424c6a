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
export function prlimitArgs(
  prlimit: string,
  limits: ToolRlimits,
  withProcesses: boolean,
  withAddressSpace = true,
): string[] {
  return [
    prlimit,
    ...(withProcesses ? [`--nproc=${limits.processes}`] : []),
    ...(withAddressSpace ? [`--as=${limits.addressSpaceBytes}`] : []),
    `--nofile=${limits.openFiles}`,
    `--fsize=${limits.fileSizeBytes}`,
    "--core=0",
    "--",
  ]
}

/**
 * The sandbox helper (Bun) holds the limits its tool processes inherit, so no limit costs an exec
 * per process. Bun sizes its reservations to RLIMIT_AS and starts under 512 MiB; below this floor
 * the helper runs without the address-space limit and each tool process gets it through prlimit.
 */
export const HELPER_MIN_ADDRESS_SPACE = 1024 * MiB

/** The per-process prefix when the helper cannot hold the address-space limit itself. */
export function perProcessLimit(prlimit: string | null, limits: ToolRlimits | null): string[] {
  if (!prlimit || !limits || limits.addressSpaceBytes >= HELPER_MIN_ADDRESS_SPACE) return []
  return [prlimit, `--as=${limits.addressSpaceBytes}`, "--"]
}
