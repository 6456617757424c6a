/** `auto`: contain as well as the host allows; `required`: refuse tools the host cannot contain; `off`: no wrapper. */
export type ContainmentMode = "auto" | "required" | "off"

/**
 * How tool processes are contained. `namespaces`: own user, pid, ipc and mount namespaces (dupin
 * invisible) plus resource limits; `rlimits`: resource limits only; `none`: neither.
 */
export type ContainmentLevel = "namespaces" | "rlimits" | "none"

export type ContainmentMechanism = "bwrap" | "unshare"

/** What `/api/info` and `dupin toolsets` show. */
export type ContainmentInfo = {
  mode: ContainmentMode
  level: ContainmentLevel
  mechanism: ContainmentMechanism | null
  /** True when dupin's own /proc entries (environ, mem) are closed to same-user processes. */
  nonDumpable: boolean
  /** Whether the root file system is read-only and dupin's config, env files and /etc/dupin are hidden. */
  filesystem: "read-only, masked" | "shared"
  /** `private`: tools see only their own processes; `host`: the host's /proc (dupin's entries closed by non-dumpable). */
  proc: "private" | "host"
  /** Per tool process; null where no limit is applied. */
  limits: ToolRlimits | null
  /** Concurrent tool processes in this dupin process; the rest wait. */
  maxConcurrentProcesses: number
  /** Empty when fully contained; otherwise what is missing and how to fix it. */
  warnings: string[]
  /** In `required` mode on a host that cannot contain tools: why every tool call is refused. */
  refusal: string | null
}

export type ToolRlimits = {
  /** RLIMIT_NPROC: processes and threads of the tool's user (per user namespace when there is one). */
  processes: number
  /** RLIMIT_AS in bytes: kubectl and Bun need well under 4 GiB of address space. */
  addressSpaceBytes: number
  /** RLIMIT_NOFILE. */
  openFiles: number
  /** RLIMIT_FSIZE in bytes: the largest file a tool may write (its temp dir is on the host disk). */
  fileSizeBytes: number
}
