/**
 * Process-global containment of tool processes, configured once at startup (the CLI does it
 * after loading the config, the runtime when it first builds a Config's executor and nothing did) and
 * read by `spawn.ts` for every process. Code below the runtime (spawn, a ToolExecutor built by
 * hand, tests) runs uncontained until something configures it, with a warning in
 * `containmentInfo()`.
 */
import { existsSync, realpathSync, statSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { errorMessage } from "../../errors.ts"
import type { BwrapFlavor, ProcView } from "./bwrap.ts"
import { type Detected, detect, detectInBackground, findPrograms, type Programs } from "./detect.ts"
import { memoryLimitBytes } from "./memory-limit.ts"
import { makeNonDumpable } from "./non-dumpable.ts"
import { ProcessSlots } from "./process-slots.ts"
import { RequestQuota, requestSlots } from "./request-quota.ts"
import { DEFAULT_TOOL_RLIMITS } from "./rlimits.ts"
import { SandboxPool } from "./sandbox-pool.ts"
import { makeStateDir, removeStaleStateDirs, stateDir } from "./state-dir.ts"
import type { ContainmentInfo, ContainmentMode, ToolRlimits } from "./types.ts"

export type { ProcView } from "./bwrap.ts"
export { DEFAULT_TOOL_RLIMITS } from "./rlimits.ts"
export type {
  ContainmentInfo,
  ContainmentLevel,
  ContainmentMechanism,
  ContainmentMode,
  ToolRlimits,
} from "./types.ts"

export const DEFAULT_MAX_CONCURRENT_PROCESSES = 32
/** Where the bastion guide keeps config, env file and kubeconfig; hidden from every tool. */
export const DUPIN_ETC = "/etc/dupin"
/** Password hashes no tool needs; only a root dupin could read them, and root owns them. */
const SYSTEM_SECRETS = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"]

export type ContainmentOptions = {
  mode?: ContainmentMode
  maxConcurrentProcesses?: number
  /** dupin's config file and env files: replaced by /dev/null inside the sandbox. */
  secretPaths?: string[]
  /** Paths a tool may write besides its temp dir (an embedding application's choice; none by default). */
  writablePaths?: string[]
  limits?: Partial<ToolRlimits>
  /** The /proc tools see with bwrap (see ProcView); `private` unless the host cannot mount one. */
  proc?: ProcView
  /** dupin's home folder, private in the read-only view; default the user's home. */
  home?: string | null
  /** Resident memory of all tool processes together; default half the host's memory. */
  totalMemoryBytes?: number
  /** Host programs to use instead of the ones found on the system PATH; null: not available (tests). */
  programs?: Partial<Omit<Programs, "true" | "sh">>
}

/** What spawn needs for each run; `info` is what operators see. */
export type ContainmentState = {
  info: ContainmentInfo
  programs: Programs
  secretFiles: string[]
  secretDirs: string[]
  writable: string[]
  root: boolean
  flavor: BwrapFlavor
  /** dupin's state folder (runs' temp dirs, spilled outputs), hidden from tools; null when uncontained. */
  runsDir: string | null
  slots: ProcessSlots
  /** dupin's home folder: private (an empty tmpfs) in the read-only view. */
  home: string | null
  /** Resident memory of all tool processes together, and one request's share. */
  totalMemoryBytes: number
  requestMemoryBytes: number
  /** The long-lived sandboxes, one per view (bwrap only). */
  pool: SandboxPool | null
}

const FIX_NAMESPACES =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow unprivileged user namespaces " +
  "(sysctl kernel.unprivileged_userns_clone=1, kernel.apparmor_restrict_unprivileged_userns=0; in a systemd " +
  "unit RestrictNamespaces=user mnt pid ipc and SystemCallFilter=@system-service @mount, as deploy/dupin.service has)"

const UNCONFIGURED = [
  "containment is not configured: tool processes run uncontained (call configureContainment at startup)",
]

const DETECTING =
  "tool containment is still being detected (dupin is starting); tools run once it has answered"

let state: ContainmentState = uncontained("off", UNCONFIGURED, DEFAULT_MAX_CONCURRENT_PROCESSES)
/** False until configureContainment runs; the runtime then applies the Config's settings (issue 19.3). */
let configured = false
/** The background detection under way, if any (configureContainmentInBackground). */
let pending: Promise<void> | null = null

/** Back to the state before any configureContainment (tests that configure it in-process). */
export function resetContainment(): void {
  state.pool?.dispose()
  configured = false
  pending = null
  state = uncontained("off", UNCONFIGURED, DEFAULT_MAX_CONCURRENT_PROCESSES)
}

/** Whether containment was configured (explicitly, or by the first tool run). */
export function containmentConfigured(): boolean {
  return configured
}

/** Detects what the host allows, applies what dupin itself can (non-dumpable) and stores the result. */
export function configureContainment(options: ContainmentOptions = {}): ContainmentInfo {
  const start = begin(options)
  if (!start) return state.info
  settle(start, detect(start.programs, start.root, options.proc ?? "private", start.nonDumpable))
  return state.info
}

/**
 * `configureContainment` with the host's probes (bwrap starts, ~20 ms) run while the caller goes
 * on building its config, toolsets and routes. Until they answer, every tool run and sandbox
 * start waits for them (`settledContainment`), and anything that reads the state without waiting
 * finds it refusing tools: nothing runs less contained than configured. Resolves to the info once
 * settled (`required` on a host that cannot contain: its refusal).
 */
export function configureContainmentInBackground(options: ContainmentOptions = {}): Promise<ContainmentInfo> {
  const start = begin(options)
  if (!start) return Promise.resolve(state.info)
  // A later configureContainment or resetContainment replaces this one: its result is then stale.
  const current = () => pending === settling
  const settling: Promise<void> = detectInBackground(
    start.programs,
    start.root,
    options.proc ?? "private",
    start.nonDumpable,
  )
    .then((detected) => {
      if (current()) settle(start, detected)
    })
    .catch((error: unknown) => {
      // Still refusing: a tool never runs with less containment than configured.
      if (current()) state.info.refusal = `tool containment could not be set up: ${errorMessage(error)}`
    })
    .finally(() => {
      if (current()) pending = null
    })
  pending = settling
  return settling.then(() => state.info)
}

/** The state once any detection under way has answered: what every tool spawn path awaits. */
export async function settledContainment(): Promise<ContainmentState> {
  while (pending) await pending
  return state
}

/** What operators see once detection has answered (`dupin toolsets`, the start log, /api/info). */
export async function settledContainmentInfo(): Promise<ContainmentInfo> {
  return (await settledContainment()).info
}

type Start = {
  options: ContainmentOptions
  mode: ContainmentMode
  max: number
  root: boolean
  nonDumpable: boolean
  programs: Programs
  runsDir: string
  /** The sandboxes of this configuration, once settled: they write into runsDir until stopped. */
  pool: SandboxPool | null
}

/** What does not depend on the probes; undefined for `off`, which is settled at once. */
function begin(options: ContainmentOptions): Start | undefined {
  const mode = options.mode ?? "auto"
  const max = options.maxConcurrentProcesses ?? DEFAULT_MAX_CONCURRENT_PROCESSES
  state.pool?.dispose()
  configured = true
  pending = null
  if (mode === "off") {
    state = uncontained(mode, ["security.containment is off: tool processes run uncontained"], max)
    return undefined
  }
  const start: Start = {
    options,
    mode,
    max,
    root: process.getuid?.() === 0,
    nonDumpable: makeNonDumpable(),
    programs: findPrograms(options.programs),
    // The sandboxes write into it (spare run folders) until they are stopped.
    runsDir: makeStateDir(() => start.pool?.stop()),
    pool: null,
  }
  // Leftovers of a dupin that was killed (SIGKILL runs no exit hook; R17).
  removeStaleStateDirs()
  // Until the probes answer: refuse, never run a tool less contained than configured. The state
  // folder is there already: serve's private socket goes into it at the bind.
  state = {
    ...uncontained(mode, [DETECTING], max),
    runsDir: start.runsDir,
    ...memoryQuotas(options.totalMemoryBytes),
  }
  state.info.refusal = DETECTING
  return start
}

function settle(start: Start, found: Detected): void {
  const { options, mode, max, root, nonDumpable } = start
  const limits = { ...DEFAULT_TOOL_RLIMITS, ...options.limits }
  const info: ContainmentInfo = {
    mode,
    level: found.mechanism ? "namespaces" : found.programs.prlimit ? "rlimits" : "none",
    mechanism: found.mechanism,
    nonDumpable,
    filesystem: found.mechanism === "bwrap" ? "read-only, masked" : "shared",
    proc: found.mechanism ? found.flavor.proc : "host",
    limits: found.programs.prlimit ? limits : null,
    maxConcurrentProcesses: max,
    warnings: warnings(found, nonDumpable, root),
    refusal: null,
  }
  const full = found.mechanism === "bwrap" && found.programs.prlimit !== null
  if (mode === "required" && !full) {
    info.refusal = `security.containment is required, but this host cannot contain tool processes (${info.warnings.join("; ")}). Fix: ${FIX_NAMESPACES}; or set security.containment: auto to run them with less containment.`
  }
  const secrets = [...(options.secretPaths ?? []), ...SYSTEM_SECRETS]
    .filter(existsSync)
    .map((p) => realpathSync(p))
  state = {
    info,
    programs: found.programs,
    secretFiles: secrets.filter((p) => !statSync(p).isDirectory()),
    secretDirs: [...secrets.filter((p) => statSync(p).isDirectory()), ...existingDir(DUPIN_ETC)],
    writable: (options.writablePaths ?? []).filter(existsSync).map((p) => realpathSync(p)),
    root,
    flavor: found.flavor,
    runsDir: start.runsDir,
    slots: new ProcessSlots(max),
    home: options.home === undefined ? homedir() : options.home,
    ...memoryQuotas(options.totalMemoryBytes),
    pool: null,
  }
  if (found.mechanism === "bwrap") state.pool = new SandboxPool(state)
  start.pool = state.pool
}

/** The state folder spilled tool outputs go to: inside dupin's hidden state folder (R7). */
export function spillParent(): string {
  return stateDir(state.runsDir)
}

/**
 * Where serve's private unix socket goes (behind the header guard): dupin's state folder, which
 * every sandbox hides, so no contained tool or MCP server can connect to it (R8: a read-only bind
 * of the host's temp dir still lets a process connect). Uncontained, the temp dir (0700 folder).
 */
export function privateSocketParent(): string {
  return state.runsDir ?? tmpdir()
}

/** Starts the read-only view's sandbox now rather than on the first tool call (once detected). */
export function warmToolSandbox(env: Record<string, string>): void {
  if (!pending) {
    state.pool?.get("read-only", env).warm()
    return
  }
  void settledContainment().then((settled) => settled.pool?.get("read-only", env).warm())
}

/** A fresh per-request share of the tool-process pool. */
export function newRequestQuota(): RequestQuota {
  return new RequestQuota(requestSlots(state.slots.size), state.requestMemoryBytes)
}

function memoryQuotas(total: number | undefined): { totalMemoryBytes: number; requestMemoryBytes: number } {
  // Half of what the kernel lets dupin have: the host's memory, or its cgroup's limit (a pod's).
  const all = total ?? Math.floor(memoryLimitBytes() / 2)
  return { totalMemoryBytes: all, requestMemoryBytes: Math.max(256 * 1024 * 1024, Math.floor(all / 4)) }
}

export function containmentInfo(): ContainmentInfo {
  return state.info
}

/** The state spawn uses; internal to src/tool. */
export function currentContainment(): ContainmentState {
  return state
}

function warnings(found: Detected, nonDumpable: boolean, root: boolean): string[] {
  const out = [...found.failures]
  if (process.platform !== "linux") out.push(`no containment on ${process.platform}: Linux only`)
  if (found.mechanism === null) {
    out.push(
      `no namespaces: a tool can read dupin's config and env files and write where dupin can; ${FIX_NAMESPACES}`,
    )
  } else if (found.mechanism === "unshare") {
    out.push(
      "namespaces through unshare: the file system is shared (config and env files readable, writes not confined); install bubblewrap",
    )
  }
  if (!found.programs.prlimit)
    out.push("prlimit (util-linux) not found: no process, memory or open-file limits on tools")
  else if (found.mechanism === null)
    out.push("no user namespace: the process limit cannot be applied per tool run")
  if (!nonDumpable && process.platform === "linux")
    out.push("could not make dupin non-dumpable: same-user processes can read its /proc entries")
  if (root) {
    out.push(
      "dupin runs as root: the kernel does not apply the process limit to root; bound the service with TasksMax= (deploy/dupin.service)",
    )
  }
  return out
}

function uncontained(mode: ContainmentMode, why: string[], max: number): ContainmentState {
  return {
    info: {
      mode,
      level: "none",
      mechanism: null,
      nonDumpable: false,
      filesystem: "shared",
      proc: "host",
      limits: null,
      maxConcurrentProcesses: max,
      warnings: why,
      refusal: null,
    },
    programs: { bwrap: null, unshare: null, prlimit: null, true: null, sh: null },
    secretFiles: [],
    secretDirs: [],
    writable: [],
    root: false,
    flavor: { proc: "host", disableUserns: false },
    runsDir: null,
    slots: new ProcessSlots(max),
    home: null,
    ...memoryQuotas(undefined),
    pool: null,
  }
}

function existingDir(path: string): string[] {
  try {
    return statSync(path).isDirectory() ? [path] : []
  } catch {
    return []
  }
}
