import { log } from "../log.ts"
import { type Job, type JobResult, type Reply, runJob, type Value } from "./jobs.ts"

/**
 * Runs a job (jobs.ts) in a worker thread with a deadline, so work an outside party sizes never
 * holds the event loop: /healthz and every other request keep their turn. The worker is
 * terminated at the deadline or on abort; a job past its deadline throws `JobTimeout` and the
 * caller decides what a missing answer means (withheld output, a refused answer). Where a worker
 * cannot start, the job runs here, as it did before workers.
 */

/** Jobs at once; more wait for a slot (each holds a copy of up to several 10 MB outputs). */
const MAX_WORKERS = 4

export class JobTimeout extends Error {}
class WorkerUnavailable extends Error {}

let running = 0
const waiting: Array<() => void> = []

export async function offLoop<J extends Job>(
  job: J,
  deadlineMs: number,
  signal: AbortSignal,
): Promise<JobResult<J>> {
  await acquire(signal)
  try {
    return (await inWorker(job, deadlineMs, signal)) as JobResult<J>
  } catch (error) {
    if (!(error instanceof WorkerUnavailable)) throw error
    log.warn("off-loop worker unavailable, running the job on the main thread", {
      job: job.kind,
      error: error.message,
    })
    return runJob(job) as JobResult<J>
  } finally {
    release()
  }
}

function inWorker(job: Job, deadlineMs: number, signal: AbortSignal): Promise<Value> {
  signal.throwIfAborted()
  const { promise, resolve, reject } = Promise.withResolvers<Value>()
  let worker: Worker
  try {
    worker = new Worker(workerUrl())
  } catch (error) {
    throw new WorkerUnavailable(error instanceof Error ? error.message : String(error))
  }
  const done = () => {
    clearTimeout(timer)
    signal.removeEventListener("abort", onAbort)
    worker.terminate()
  }
  const onAbort = () => {
    done()
    reject(signal.reason)
  }
  const timer = setTimeout(() => {
    done()
    reject(new JobTimeout(`${job.kind} did not finish within ${Math.round(deadlineMs / 1000)} s`))
  }, deadlineMs)
  signal.addEventListener("abort", onAbort, { once: true })
  worker.onmessage = (event: MessageEvent<Reply>) => {
    done()
    if (event.data.ok) resolve(event.data.value)
    else reject(new Error(event.data.message))
  }
  worker.onerror = (event) => {
    done()
    reject(new WorkerUnavailable(event.message))
  }
  worker.postMessage(job)
  return promise
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

async function acquire(signal: AbortSignal): Promise<void> {
  while (running >= MAX_WORKERS) {
    signal.throwIfAborted()
    await new Promise<void>((resolve) => waiting.push(resolve))
  }
  running++
}

function release(): void {
  running--
  waiting.shift()?.()
}
