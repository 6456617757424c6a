import type { ContainmentInfo } from "./types.ts"

/** The containment as `/api/info` shows it (snake_case, like the rest of the HTTP API). */
export function containmentWire(info: ContainmentInfo): Record<string, unknown> {
  return {
    mode: info.mode,
    level: info.level,
    mechanism: info.mechanism,
    non_dumpable: info.nonDumpable,
    filesystem: info.filesystem,
    proc: info.proc,
    limits: info.limits && {
      processes: info.limits.processes,
      address_space_bytes: info.limits.addressSpaceBytes,
      open_files: info.limits.openFiles,
      file_size_bytes: info.limits.fileSizeBytes,
    },
    max_concurrent_processes: info.maxConcurrentProcesses,
    warnings: info.warnings,
    refusal: info.refusal,
  }
}

/** One line for `dupin toolsets` and the startup log: the level first, then what is missing. */
export function containmentLine(info: ContainmentInfo): string {
  const how = info.mechanism ? ` (${info.mechanism}, file system ${info.filesystem}, ${info.proc} /proc)` : ""
  const dump = info.nonDumpable ? ", dupin non-dumpable" : ""
  const head = `Tool containment: ${info.level}${how}${dump}, mode ${info.mode}`
  return info.warnings.length ? `${head}. Warnings: ${info.warnings.join("; ")}` : head
}
