/**
 * The one place dupin starts processes. Every tool process runs in its own process group with an
 * explicit environment, a wall-clock limit and a byte cap on what is kept of its output; on
 * timeout, abort or exit of the leader the whole group is killed, so nothing a tool starts
 * outlives its run.
 */
import type { Subprocess } from "bun"
import { settledContainment } from "./containment/index.ts"
import type { RequestQuota } from "./containment/request-quota.ts"
import { perProcessLimit } from "./containment/rlimits.ts"
import { openSandbox, type SandboxRun } from "./containment/sandbox.ts"
import { exitOf } from "./containment/signals.ts"
import type { SandboxView } from "./containment/views.ts"
import { closeQuietly, type OsPipe, osPipe } from "./os-pipe.ts"
import { OutputCapture, type StreamName } from "./output-capture.ts"
import { executeInHelper } from "./spawn-in-helper.ts"
import type { SpilledOutput } from "./spilled-output.ts"

export type ProcessResult = {
  /** null when the process was killed by a signal (see `signalCode`) or never started. */
  exitCode: number | null
  signalCode: string | null
  /** stdout and stderr as they arrived, the first `maxOutputBytes` bytes of them. */
  output: string
  /** The stdout part of `output`; decoded on first read (a getter: rest or spread decodes it). */
  readonly stdout: string
  /** The stderr part of `output`; decoded on first read, like `stdout`. */
  readonly stderr: string
  /** Bytes the process wrote in total, kept or not. */
  outputBytes: number
  /** Bytes drained and counted but not kept. */
  truncatedBytes: number
  timedOut: boolean
  aborted: boolean
  durationMs: number
  /** Why the process could not start ("kubectl: command not found"); also in `output`. */
  error?: string
  /**
   * With `spill` and kept output over 128 KB: the whole output, redacted, in a file; `output`
   * (and `stdout`/`stderr`) are then only its first characters, and `output` is redacted.
   */
  spill?: SpilledOutput
}

export type StageExit = { argv: string[]; exitCode: number | null; signalCode: string | null }

export type PipelineResult = ProcessResult & {
  /** Exit status of every stage, in order. */
  stages: StageExit[]
}

type CommonOptions = {
  /** The complete environment of the child (see `buildToolEnv`); nothing is inherited. */
  env: Record<string, string>
  cwd?: string
  timeoutMs: number
  signal?: AbortSignal
  maxOutputBytes: number
  /**
   * `writable` for a call a human approved (CONTRACT §5: it takes effect); otherwise the
   * read-only view. See containment/views.ts.
   */
  view?: SandboxView
  /** The request's share of process slots and memory; without one, only the global pool bounds it. */
  quota?: RequestQuota
  /**
   * Keep a long output in a file rather than as one string (see SpilledOutput): for output bound
   * for the model, which reads a prefix and pages the rest. Not for output a program reads whole.
   */
  spill?: boolean
  /**
   * The answer is about the host's processes (`ps`, `ss -p`; a YAML tool's `host_view: true`): on
   * a read-only run with bubblewrap, the run sees the host's /proc, read-only, in a sandbox of its
   * own (the per-call wrapper, ~20 ms), instead of the private /proc of a helper's run, where `ps`
   * lists only itself. Only where dupin is non-dumpable: its environ, memory and fds stay closed.
   */
  hostView?: boolean
}

export type RunProcessOptions = CommonOptions & {
  argv: string[]
  /** Written to the child's stdin; without it stdin is /dev/null. */
  stdin?: string | Uint8Array
}

export type RunPipelineOptions = CommonOptions & {
  /** Each stage an argv; stage N's stdout feeds stage N+1's stdin. No shell is involved. */
  stages: string[][]
  /** Written to the first stage's stdin; without it stdin is /dev/null. */
  stdin?: string | Uint8Array
}

/** Time a group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000
/**
 * Time to wait for the output pipes once every stage has exited and its group was killed. Only a
 * process that left the group (setsid) can still hold a pipe open; it must not hold the run.
 */
const DRAIN_GRACE_MS = 500

/** Runs one process. Never throws: a failure to start is a result with exit code 126/127. */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  return execute([options.argv], options, options.stdin)
}

/**
 * Runs `a | b | c` without a shell. The output is the last stage's stdout plus every stage's
 * stderr. The exit status is the rightmost failing stage's (bash `pipefail`), except that a
 * producer killed by SIGPIPE is not a failure: `kubectl get | head` is normal use.
 */
export function runPipeline(options: RunPipelineOptions): Promise<PipelineResult> {
  if (options.stages.length === 0) throw new Error("runPipeline needs at least one stage")
  return execute(options.stages, options, options.stdin)
}

async function execute(
  stages: string[][],
  options: CommonOptions,
  stdin: string | Uint8Array | undefined,
): Promise<PipelineResult> {
  const started = performance.now()
  const capture = new OutputCapture(options.maxOutputBytes, options.spill)
  const exits: StageExit[] = stages.map((argv) => ({ argv, exitCode: null, signalCode: null }))
  const refuse = (message: string) => {
    capture.add("stderr", new TextEncoder().encode(`${message}\n`))
    return capture.result({ stages: exits, started, error: message, exitCode: 126 })
  }
  // Detection may still be under way at start (containment/index.ts): tools wait for it.
  const containment = await settledContainment()
  // `required` mode on a host that cannot contain tools: nothing runs.
  if (containment.info.refusal) return refuse(containment.info.refusal)
  if (stages.length > containment.slots.size) {
    return refuse(
      `a pipeline of ${stages.length} processes exceeds the ${containment.slots.size} tool processes dupin runs at once`,
    )
  }
  // The deadline covers the wait for a slot too: spawn is the tool's only timeout owner.
  const deadline = AbortSignal.timeout(options.timeoutMs)
  const waitSignal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline
  const release = await containment.slots.acquire(stages.length, waitSignal, options.quota)
  if (!release) {
    const aborted = options.signal?.aborted ?? false
    return capture.result({ stages: exits, started, aborted, timedOut: !aborted })
  }
  const view = options.view ?? "read-only"
  const hostProc = Boolean(options.hostView) && view === "read-only" && containment.info.nonDumpable
  if (containment.pool && !hostProc) {
    try {
      const sandbox = containment.pool.get(view, options.env)
      const group = options.quota?.key ?? "unscoped"
      const memoryBytes = options.quota?.memoryBytes ?? containment.requestMemoryBytes
      return await executeInHelper(
        sandbox,
        stages,
        {
          ...options,
          group,
          memoryBytes,
          prefix: perProcessLimit(containment.programs.prlimit, containment.info.limits),
        },
        stdin,
        { started, capture, exits },
        pipefailStage,
      )
    } finally {
      release()
    }
  }
  let sandbox: SandboxRun
  try {
    sandbox = openSandbox(containment, { env: options.env, cwd: options.cwd, hostProc })
  } catch (error) {
    release()
    return refuse(
      `cannot prepare the tool sandbox: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  try {
    return await executeIn(sandbox, stages, options, stdin, { started, capture, exits })
  } finally {
    sandbox.cleanup()
    release()
  }
}

async function executeIn(
  sandbox: SandboxRun,
  stages: string[][],
  options: CommonOptions,
  stdin: string | Uint8Array | undefined,
  run: { started: number; capture: OutputCapture; exits: StageExit[] },
): Promise<PipelineResult> {
  const { started, capture, exits } = run
  if (options.signal?.aborted) return capture.result({ stages: exits, started, aborted: true })

  // Stage N writes straight into a kernel pipe that stage N+1 reads: exact shell semantics
  // (EOF, backpressure, SIGPIPE for a producer whose consumer left), and no bytes pass through us.
  let pipes: OsPipe[]
  try {
    pipes = stages.slice(1).map(() => osPipe(options.env))
  } catch (error) {
    const message = `cannot create a pipe: ${error instanceof Error ? error.message : String(error)}`
    capture.add("stderr", new TextEncoder().encode(`${message}\n`))
    return capture.result({ stages: exits, started, error: message, exitCode: 126 })
  }
  const closePipes = () => {
    for (const fd of pipes.flatMap((p) => [p.read, p.write])) closeQuietly(fd)
    pipes = []
  }

  const procs: Subprocess[] = []
  let lastStdout: ReadableStream<Uint8Array> | undefined
  for (const [i, argv] of stages.entries()) {
    const input = i === 0 ? (stdin === undefined ? "ignore" : toBytes(stdin)) : pipes[i - 1]!.read
    const isLast = i === stages.length - 1
    try {
      const proc = Bun.spawn(sandbox.wrap(argv), {
        env: sandbox.env,
        cwd: options.cwd,
        stdin: input,
        stdout: isLast ? "pipe" : pipes[i]!.write,
        stderr: "pipe",
        detached: true,
      })
      procs.push(proc)
      if (isLast) lastStdout = proc.stdout as ReadableStream<Uint8Array>
    } catch (error) {
      closePipes()
      for (const p of procs) killGroup(p.pid, "SIGKILL")
      const failure = startFailure(error, argv, options)
      capture.add("stderr", new TextEncoder().encode(`${failure.message}\n`))
      exits[i] = { argv, exitCode: failure.exitCode, signalCode: null }
      return capture.result({ stages: exits, started, error: failure.message, exitCode: failure.exitCode })
    }
  }
  // Our copies of the pipe ends would keep readers from seeing EOF and writers from SIGPIPE.
  closePipes()

  const cancels: Array<() => void> = []
  const drains = procs.map((p) => drain(p.stderr as ReadableStream<Uint8Array>, "stderr", capture, cancels))
  if (lastStdout) drains.push(drain(lastStdout, "stdout", capture, cancels))

  let timedOut = false
  let aborted = false
  let killTimer: ReturnType<typeof setTimeout> | undefined
  const terminate = () => {
    for (const p of procs) killGroup(p.pid, "SIGTERM")
    killTimer ??= setTimeout(() => {
      for (const p of procs) killGroup(p.pid, "SIGKILL")
    }, KILL_GRACE_MS)
  }
  const timer = setTimeout(
    () => {
      timedOut = true
      terminate()
    },
    Math.max(0, options.timeoutMs - (performance.now() - started)),
  )
  const onAbort = () => {
    aborted = true
    terminate()
  }
  options.signal?.addEventListener("abort", onAbort, { once: true })

  try {
    await Promise.all(
      procs.map(async (p, i) => {
        await p.exited
        exits[i] = { argv: stages[i]!, ...exitOf(p, sandbox.reportsSignalsAsExitCodes) }
        // Background children (`sleep 1000 &`) must not outlive their leader.
        killGroup(p.pid, "SIGKILL")
      }),
    )
    await Promise.race([Promise.all(drains), Bun.sleep(DRAIN_GRACE_MS)])
    for (const cancel of cancels) cancel()
  } finally {
    clearTimeout(timer)
    clearTimeout(killTimer)
    options.signal?.removeEventListener("abort", onAbort)
  }

  const failing = pipefailStage(exits)
  return capture.result({
    stages: exits,
    started,
    timedOut,
    aborted,
    exitCode: failing.exitCode,
    signalCode: failing.signalCode,
  })
}

/**
 * The rightmost failed stage, or the last stage when none failed. A producer killed by SIGPIPE
 * (its consumer stopped reading, as in `| head`) did not fail: bash reports that only under
 * pipefail, as 141, and nobody means it as an error.
 */
function pipefailStage(exits: StageExit[]): StageExit {
  for (let i = exits.length - 1; i >= 0; i--) {
    const stage = exits[i]!
    const cutOff = i < exits.length - 1 && stage.signalCode === "SIGPIPE"
    if (stage.exitCode !== 0 && !cutOff) return stage
  }
  return exits[exits.length - 1]!
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: the group is already empty.
  }
}

/**
 * Reads a pipe to its end into `capture`. Past the cap the loop only counts: the process must be
 * able to write everything (a full pipe would stall it, a closed one would SIGPIPE it), but
 * nothing of it is kept, copied or decoded.
 */
async function drain(
  stream: ReadableStream<Uint8Array>,
  name: StreamName,
  capture: OutputCapture,
  cancels: Array<() => void>,
): Promise<void> {
  const reader = stream.getReader()
  cancels.push(() => {
    reader.cancel().catch(() => {})
  })
  try {
    while (!capture.full) {
      const { done, value } = await reader.read()
      if (done) return
      capture.add(name, value)
    }
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      capture.seen += value.byteLength
    }
  } catch {
    // A cancelled or broken pipe ends the output; what was read is kept.
  }
}

function startFailure(
  error: unknown,
  argv: string[],
  options: CommonOptions,
): { exitCode: number; message: string } {
  const command = argv[0] ?? ""
  const code = (error as { code?: string } | null)?.code
  if (code === "ENOENT") {
    // ENOENT is also what a missing cwd gives; tell them apart so the message names the real fault.
    const found = Bun.which(command, { PATH: options.env.PATH ?? "", cwd: options.cwd })
    if (found && options.cwd) return { exitCode: 127, message: `${command}: cannot start in ${options.cwd}` }
    return { exitCode: 127, message: `${command}: command not found` }
  }
  if (code === "EACCES") return { exitCode: 126, message: `${command}: permission denied` }
  const detail = error instanceof Error ? error.message : String(error)
  return { exitCode: 126, message: `${command}: cannot start: ${detail}` }
}

function toBytes(value: string | Uint8Array): Uint8Array {
  return typeof value === "string" ? new TextEncoder().encode(value) : value
}
