/**
 * A run inside the long-lived sandbox of its view (bubblewrap hosts): the helper there starts the
 * processes, so no namespace or mount is set up per call. Same contract as a direct spawn: the
 * deadline and abort kill the process groups (through the helper), output is capped, the temp
 * dir is removed, and nothing the run started outlives it.
 */
import { join } from "node:path"
import { OUTPUT_FILE_NAME, type RunDone } from "./containment/helper/protocol.ts"
import type { HelperSandbox } from "./containment/helper-sandbox.ts"
import { resolveCommand } from "./containment/sandbox.ts"
import { privateHomeOf } from "./containment/views.ts"
import type { OutputCapture } from "./output-capture.ts"
import type { PipelineResult, StageExit } from "./spawn.ts"

const KILL_GRACE_MS = 2000
const MiB = 1024 * 1024

export type HelperRunOptions = {
  env: Record<string, string>
  cwd?: string | undefined
  timeoutMs: number
  signal?: AbortSignal | undefined
  maxOutputBytes: number
  group: string
  memoryBytes: number
  /** Put before each stage (a prlimit the helper cannot hold itself; see rlimits.ts). */
  prefix: string[]
}

/** Whether `cwd` lies in the read-only view's private HOME (and so is not there until made). */
function inPrivateHome(sandbox: HelperSandbox, cwd: string | undefined): boolean {
  if (!cwd || sandbox.view !== "read-only") return false
  const home = privateHomeOf(sandbox.containment)
  return home !== null && cwd.startsWith(`${home}/`)
}

export async function executeInHelper(
  sandbox: HelperSandbox,
  stages: string[][],
  options: HelperRunOptions,
  stdin: string | Uint8Array | undefined,
  run: { started: number; capture: OutputCapture; exits: StageExit[] },
  pipefail: (exits: StageExit[]) => StageExit,
): Promise<PipelineResult> {
  const { started, capture, exits } = run
  const fail = (exitCode: number, message: string, stage = 0): Promise<PipelineResult> => {
    capture.add("stderr", new TextEncoder().encode(`${message}\n`))
    exits[stage] = { argv: stages[stage] ?? [], exitCode, signalCode: null }
    return capture.result({ stages: exits, started, error: message, exitCode })
  }
  if (options.signal?.aborted) return capture.result({ stages: exits, started, aborted: true })
  // TMPDIR and the kubectl and helm caches are the helper's to set: the run's own folder.
  const env = options.env
  const resolved: string[][] = []
  for (const [i, argv] of stages.entries()) {
    try {
      resolved.push([
        ...options.prefix,
        resolveCommand(argv[0] ?? "", env.PATH ?? "", options.cwd),
        ...argv.slice(1),
      ])
    } catch (error) {
      const code = (error as { code?: string }).code
      return code === "EACCES"
        ? fail(126, `${argv[0]}: permission denied`, i)
        : fail(127, `${argv[0]}: command not found`, i)
    }
  }
  let timedOut = false
  let aborted = false
  let id: number | undefined
  let killTimer: ReturnType<typeof setTimeout> | undefined
  const terminate = () => {
    if (id === undefined) return
    sandbox.kill(id, "SIGTERM")
    const target = id
    killTimer ??= setTimeout(() => sandbox.kill(target, "SIGKILL"), KILL_GRACE_MS)
  }
  const controller = new AbortController()
  const timer = setTimeout(
    () => {
      timedOut = true
      controller.abort()
      terminate()
    },
    Math.max(0, options.timeoutMs - (performance.now() - started)),
  )
  const onAbort = () => {
    aborted = true
    controller.abort()
    terminate()
  }
  options.signal?.addEventListener("abort", onAbort, { once: true })
  let done: RunDone
  try {
    const started = await sandbox.run(
      {
        stages: resolved,
        env,
        cwd: options.cwd ?? null,
        ...(inPrivateHome(sandbox, options.cwd) ? { makeCwd: true } : {}),
        stdin: stdin === undefined ? null : Buffer.from(stdin).toString("base64"),
        cap: options.maxOutputBytes,
        group: options.group,
        memoryBytes: options.memoryBytes,
      },
      { onOutput: (stream, bytes) => capture.add(stream, bytes) },
      controller.signal,
    )
    id = started.id
    // The deadline or an abort may have come while the sandbox was starting.
    if (timedOut || aborted) terminate()
    done = await started.done
  } catch (error) {
    if (aborted || timedOut) return capture.result({ stages: exits, started: run.started, aborted, timedOut })
    return fail(
      126,
      `cannot start the tool sandbox: ${error instanceof Error ? error.message : String(error)}`,
    )
  } finally {
    clearTimeout(timer)
    clearTimeout(killTimer)
    options.signal?.removeEventListener("abort", onAbort)
  }
  capture.seen = Math.max(capture.seen, done.seen)
  // A long output is in a file of the run area: its bytes go from there to the worker.
  if (done.file && OUTPUT_FILE_NAME.test(done.file.name)) {
    capture.adoptFile(join(sandbox.area, done.file.name), done.file.bytes, done.file.runs)
  }
  if (done.startError) {
    const { stage, code, message } = done.startError
    const command = stages[stage]?.[0] ?? ""
    if (code === "ENOENT") {
      return fail(
        127,
        options.cwd ? `${command}: cannot start in ${options.cwd}` : `${command}: command not found`,
        stage,
      )
    }
    if (code === "EACCES") return fail(126, `${command}: permission denied`, stage)
    return fail(126, code === "EHELPER" ? message : `${command}: cannot start: ${message}`, stage)
  }
  for (const [i, end] of done.stages.entries()) exits[i] = { argv: stages[i]!, ...end }
  // Said in the output when there is room, and always in `error` (a full capture has none).
  const memory = done.memoryKilled
    ? `killed: this request's tool processes went over their memory quota (${Math.round(options.memoryBytes / MiB)} MiB)`
    : undefined
  if (memory) capture.add("stderr", new TextEncoder().encode(`\n${memory}\n`))
  const failing = pipefail(exits)
  return capture.result({
    stages: exits,
    started,
    timedOut,
    aborted,
    exitCode: failing.exitCode,
    signalCode: failing.signalCode,
    ...(memory ? { error: memory } : {}),
  })
}
