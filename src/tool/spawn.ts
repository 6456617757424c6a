/**
 * The one place dupin starts processes. Every tool process runs in its own process group with an
 * explicit environment, a wall-clock limit and a byte cap on what is kept of its output; on
 * timeout, abort or exit of the leader the whole group is killed, so nothing a tool starts
 * outlives its run.
 */
import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Subprocess } from "bun"

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
}

export type RunProcessOptions = CommonOptions & {
  argv: string[]
  /** Written to the child's stdin; without it stdin is /dev/null. */
  stdin?: string | Uint8Array
}

export type RunPipelineOptions = CommonOptions & {
  /** Each stage an argv; stage N's stdout feeds stage N+1's stdin. No shell is involved. */
  stages: string[][]
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
  return execute(options.stages, options, undefined)
}

async function execute(
  stages: string[][],
  options: CommonOptions,
  stdin: string | Uint8Array | undefined,
): Promise<PipelineResult> {
  const started = performance.now()
  const capture = new OutputCapture(options.maxOutputBytes)
  const exits: StageExit[] = stages.map((argv) => ({ argv, exitCode: null, signalCode: null }))
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
      const proc = Bun.spawn(argv, {
        env: options.env,
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
  const timer = setTimeout(() => {
    timedOut = true
    terminate()
  }, options.timeoutMs)
  const onAbort = () => {
    aborted = true
    terminate()
  }
  options.signal?.addEventListener("abort", onAbort, { once: true })

  try {
    await Promise.all(
      procs.map(async (p, i) => {
        await p.exited
        exits[i] = {
          argv: stages[i]!,
          exitCode: p.exitCode,
          signalCode: p.signalCode === null ? null : String(p.signalCode),
        }
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

type OsPipe = { read: number; write: number }

/**
 * A kernel pipe as two fds. Bun has no pipe(2) and relays `stdin: other.stdout` through a socket
 * (a cut-off producer then sees ECONNRESET, not SIGPIPE), so this goes through a FIFO: the O_RDWR
 * open lets the two one-way opens return at once, and the FIFO is unlinked before use.
 */
function osPipe(env: Record<string, string>): OsPipe {
  const dir = mkdtempSync(join(tmpdir(), "dupin-pipe-"))
  const path = join(dir, "fifo")
  try {
    const PATH = `${env.PATH ?? ""}:/usr/bin:/bin`
    const made = Bun.spawnSync(["mkfifo", "-m", "600", path], { env: { PATH }, stderr: "pipe" })
    if (made.exitCode !== 0) throw new Error(made.stderr.toString().trim() || "mkfifo failed")
    const hold = openSync(path, constants.O_RDWR)
    try {
      const read = openSync(path, constants.O_RDONLY)
      return { read, write: openSync(path, constants.O_WRONLY) }
    } finally {
      closeSync(hold)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Already closed.
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

/**
 * Keeps the first `cap` bytes of a run's output in arrival order and counts the rest. The kept
 * bytes live in one buffer that grows in place (a resizable ArrayBuffer: no copy per growth, and
 * only the pages written are resident) and are decoded once, into `output`.
 */
class OutputCapture {
  readonly #buffer: ArrayBuffer
  #kept = 0
  /** Bytes read in total, kept or not. */
  seen = 0
  /** Where each run of consecutive same-stream bytes ends in the buffer. */
  readonly #runs: StreamRun[] = []

  constructor(readonly cap: number) {
    const max = Math.max(0, cap)
    this.#buffer = new ArrayBuffer(Math.min(max, INITIAL_CAPTURE_BYTES), { maxByteLength: max })
  }

  get full(): boolean {
    return this.#kept >= this.cap
  }

  add(stream: StreamName, chunk: Uint8Array): void {
    this.seen += chunk.byteLength
    const room = this.cap - this.#kept
    if (room <= 0) return
    const bytes = chunk.byteLength <= room ? chunk : chunk.subarray(0, room)
    const end = this.#kept + bytes.byteLength
    if (end > this.#buffer.byteLength) {
      this.#buffer.resize(Math.min(this.cap, Math.max(end, this.#buffer.byteLength * 2)))
    }
    new Uint8Array(this.#buffer, this.#kept, bytes.byteLength).set(bytes)
    this.#kept = end
    const last = this.#runs.at(-1)
    if (last?.stream === stream) last.end = end
    else this.#runs.push({ stream, end })
  }

  result(fields: {
    stages: StageExit[]
    started: number
    timedOut?: boolean
    aborted?: boolean
    exitCode?: number | null
    signalCode?: string | null
    error?: string
  }): PipelineResult {
    const kept = new Uint8Array(this.#buffer, 0, this.#kept)
    const output = UTF8.decode(kept)
    const part = streamParts(output, kept, this.#runs)
    return {
      exitCode: fields.exitCode ?? null,
      signalCode: fields.signalCode ?? null,
      output,
      get stdout() {
        return part("stdout")
      },
      get stderr() {
        return part("stderr")
      },
      outputBytes: this.seen,
      truncatedBytes: this.seen - this.#kept,
      timedOut: fields.timedOut ?? false,
      aborted: fields.aborted ?? false,
      durationMs: Math.round(performance.now() - fields.started),
      stages: fields.stages,
      ...(fields.error ? { error: fields.error } : {}),
    }
  }
}

type StreamName = "stdout" | "stderr"
type StreamRun = { stream: StreamName; end: number }

/** Invalid bytes become U+FFFD; a leading BOM is kept (it is output, as Buffer#toString kept it). */
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true })

/** Bytes of the first allocation; most outputs never need more. */
const INITIAL_CAPTURE_BYTES = 64 * 1024

/**
 * `stdout` and `stderr` of a capture, decoded on first use: tools read `output` alone, and a
 * second and third decoded copy of 10 MB is what made big outputs expensive. When one stream
 * wrote everything (the usual case) its part is `output`, and the bytes are not held.
 */
function streamParts(
  output: string,
  kept: Uint8Array,
  runs: readonly StreamRun[],
): (s: StreamName) => string {
  const only = runs.length === 0 ? "stdout" : runs.length === 1 ? runs[0]?.stream : undefined
  return only ? (stream) => (stream === only ? output : "") : decodeOnDemand(kept, runs)
}

/** A closure of its own, so the single-stream case above does not keep the bytes reachable. */
function decodeOnDemand(kept: Uint8Array, runs: readonly StreamRun[]): (s: StreamName) => string {
  const parts: Partial<Record<StreamName, string>> = {}
  return (stream) => {
    const known = parts[stream]
    if (known !== undefined) return known
    const bytes = new Uint8Array(kept.byteLength)
    let length = 0
    let start = 0
    for (const run of runs) {
      if (run.stream === stream) {
        bytes.set(kept.subarray(start, run.end), length)
        length += run.end - start
      }
      start = run.end
    }
    const text = UTF8.decode(bytes.subarray(0, length))
    parts[stream] = text
    return text
  }
}

const PASSTHROUGH = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TERM",
  "KUBECONFIG",
  "DOCKER_HOST",
  "DOCKER_CONFIG",
  "DOCKER_CONTEXT",
  "DOCKER_CERT_PATH",
  "DOCKER_TLS_VERIFY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "AWS_PROFILE",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
  "CLOUDSDK_CONFIG",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_CONFIG_DIR",
])
const PASSTHROUGH_PREFIX = /^(LC_|HELM_|XDG_)/
/** Never handed to a tool, whatever allowed it: provider keys and dupin's own secrets. */
const DENIED = /(_API_KEY|_TOKEN|_SECRET)$|^SVC_/i

/**
 * The explicit environment for tool processes: an allowlist of `source` (normally process.env,
 * passed in by `config/`) plus `extra`. Names that look like credentials are dropped from both,
 * so a provider key can never reach a command the model chose.
 */
export function buildToolEnv(
  source: Record<string, string | undefined>,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || DENIED.test(name)) continue
    if (PASSTHROUGH.has(name) || PASSTHROUGH_PREFIX.test(name)) env[name] = value
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value !== undefined && !DENIED.test(name)) env[name] = value
  }
  return env
}
