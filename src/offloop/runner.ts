import { log } from "../log.ts"
import { type Job, type JobResult, type Reply, runJob, type Value } from "./jobs.ts"

/**
 * Runs a job (jobs.ts) in a worker thread with a deadline, so work an outside party sizes never
 * holds the event loop: /healthz and every other request keep their turn. Workers are kept for
 * the next job: starting one loads its modules, and terminating one blocks the caller until its
 * thread has stopped. A worker past the deadline, or whose caller aborted, is terminated; a job
 * past its deadline throws `JobTimeout` and the caller decides what a missing answer means
 * (withheld output, a refused answer). Where a worker cannot start, the job runs here, as it did
 * before workers.
 */

/** Jobs at once; more wait for a worker (each job holds a copy of up to a 10 MB output). */
const MAX_WORKERS = 4
/** A retired worker still busy after this is terminated even though that blocks until it stops. */
const RETIRE_MS = 60_000

export class JobTimeout extends Error {}
class WorkerUnavailable extends Error {}

/** Started workers not running a job. */
const idle: Worker[] = []
let started = 0
const waiting: Array<() => void> = []

export async function offLoop<J extends Job>(
  job: J,
  deadlineMs: number,
  signal: AbortSignal,
): Promise<JobResult<J>> {
  try {
    return (await inWorker(await acquire(signal), job, deadlineMs, signal)) as JobResult<J>
  } catch (error) {
    if (!(error instanceof WorkerUnavailable)) throw error
    log.warn("off-loop worker unavailable, running the job on the main thread", {
      job: job.kind,
      error: error.message,
    })
    // A worker that failed after the job's bytes were transferred to it took them along.
    if (job.kind === "parse-body" && job.chunks.some((c) => (c.buffer as ArrayBuffer).detached)) {
      return { error: "The request body could not be read: the worker parsing it failed." } as JobResult<J>
    }
    if (
      (job.kind === "decode" || job.kind === "ingest") &&
      job.bytes instanceof Uint8Array &&
      (job.bytes.buffer as ArrayBuffer).detached
    ) {
      return { output: "[output lost: the worker decoding it failed]", chars: 0, lines: 0 } as JobResult<J>
    }
    return runJob(job) as JobResult<J>
  }
}

function inWorker(worker: Worker, job: Job, deadlineMs: number, signal: AbortSignal): Promise<Value> {
  const { promise, resolve, reject } = Promise.withResolvers<Value>()
  const settle = (keep: boolean) => {
    clearTimeout(timer)
    signal.removeEventListener("abort", onAbort)
    worker.onmessage = null
    worker.onerror = null
    release(worker, keep)
  }
  const onAbort = () => {
    settle(false)
    reject(signal.reason)
  }
  const timer = setTimeout(() => {
    settle(false)
    reject(new JobTimeout(`${job.kind} did not finish within ${Math.round(deadlineMs / 1000)} s`))
  }, deadlineMs)
  signal.addEventListener("abort", onAbort, { once: true })
  worker.onmessage = (event: MessageEvent<Reply>) => {
    settle(true)
    if (event.data.ok) resolve(event.data.value)
    else reject(new Error(event.data.message))
  }
  worker.onerror = (event) => {
    settle(false)
    reject(new WorkerUnavailable(event.message))
  }
  worker.postMessage(job, transfers(job))
  return promise
}

/** Tool output moves to the worker (a transfer, no copy): its capture is done with it. */
function transfers(job: Job): ArrayBuffer[] {
  if (job.kind === "decode" || job.kind === "ingest")
    return job.bytes instanceof Uint8Array ? [job.bytes.buffer as ArrayBuffer] : []
  if (job.kind !== "parse-body") return []
  // A request body's chunks: each moves when it owns its whole buffer (copied otherwise).
  const owned = job.chunks.filter((c) => c.byteOffset === 0 && c.byteLength === c.buffer.byteLength)
  return [...new Set(owned.map((c) => c.buffer as ArrayBuffer))]
}

/**
 * In the compiled binary, modules live under /$bunfs/root/ (src/ at build time) and a split
 * chunk's import.meta.url has lost its folder, so the worker is named by its path under src/, as
 * build.ts lists it; from source, next to this file.
 */
function workerUrl(): string {
  return import.meta.url.includes("/$bunfs/")
    ? "./offloop/worker.ts"
    : new URL("./worker.ts", import.meta.url).href
}

/**
 * Starts one worker ahead of the first job (server warm-up): a worker's start loads its modules,
 * which holds the event loop for a moment on a busy machine.
 */
export function startIdleWorker(): void {
  if (started > 0) return
  try {
    idle.push(start())
  } catch {
    // The first job reports it (and runs on the main thread).
  }
}

/** An idle worker, a new one while fewer than MAX_WORKERS exist, or the next one released. */
async function acquire(signal: AbortSignal): Promise<Worker> {
  for (;;) {
    signal.throwIfAborted()
    const ready = idle.pop()
    if (ready) return ready
    if (started < MAX_WORKERS) return start()
    await new Promise<void>((resolve) => waiting.push(resolve))
  }
}

function start(): Worker {
  let worker: Worker
  try {
    worker = new Worker(workerUrl())
  } catch (error) {
    throw new WorkerUnavailable(error instanceof Error ? error.message : String(error))
  }
  started++
  // An idle worker must not keep the process alive.
  worker.unref()
  return worker
}

/**
 * Back to the idle list, or (a timed-out, aborted or failed worker) retired. Not terminated at
 * once: `terminate` blocks the caller until the thread stops, and a thread inside one long regex
 * match stops only when the match ends. Every job ends (redaction is linear, a backtracking match
 * is capped by the engine), so the worker is terminated when it reports, idle; one still busy after
 * RETIRE_MS is terminated then.
 */
function release(worker: Worker, keep: boolean): void {
  if (keep) idle.push(worker)
  else {
    started--
    const stop = () => {
      clearTimeout(timer)
      worker.terminate()
    }
    const timer = setTimeout(stop, RETIRE_MS)
    timer.unref()
    worker.onmessage = stop
    worker.onerror = stop
  }
  waiting.shift()?.()
}
