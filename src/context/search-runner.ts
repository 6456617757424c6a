import { log } from "../log.ts"
import { findMatches } from "./output-pager.ts"
import { type SearchReply, type SearchRequest, searchText } from "./search-text.ts"

/**
 * Runs read_tool_output's search in a worker thread, so the event loop never runs the model's
 * pattern: RE2 is linear in the line's length, but its lazy DFA can spend tens of milliseconds
 * building states for one long line, and that must not delay /healthz or other requests. The
 * worker is terminated at the deadline or on abort. Where a worker cannot start, the search runs
 * here instead, in 10 ms slices (findMatches yields between lines).
 */

/** Searches at once; more wait for a slot (each holds a copy of an output of up to 10 MB). */
const MAX_WORKERS = 4
/** A worker past its own budget gets this long to report before it is terminated. */
const GRACE_MS = 1_000

let running = 0
const waiting: Array<() => void> = []

export async function runSearch(request: SearchRequest, signal: AbortSignal): Promise<SearchReply> {
  await acquire(signal)
  try {
    return await inWorker(request, signal)
  } catch (error) {
    if (!(error instanceof WorkerUnavailable)) throw error
    log.warn("read_tool_output: search worker unavailable, searching on the main thread", {
      error: error.message,
    })
    return await searchText(request, findMatches, signal)
  } finally {
    release()
  }
}

class WorkerUnavailable extends Error {}

function inWorker(request: SearchRequest, signal: AbortSignal): Promise<SearchReply> {
  signal.throwIfAborted()
  const { promise, resolve, reject } = Promise.withResolvers<SearchReply>()
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
    resolve({
      kind: "refused",
      message: `The search did not finish within ${Math.round((request.budgetMs + GRACE_MS) / 1000)} s: simplify the pattern or read a line range.`,
    })
  }, request.budgetMs + GRACE_MS)
  signal.addEventListener("abort", onAbort, { once: true })
  worker.onmessage = (event: MessageEvent<SearchReply>) => {
    done()
    resolve(event.data)
  }
  worker.onerror = (event) => {
    done()
    reject(new WorkerUnavailable(event.message))
  }
  worker.postMessage(request)
  return promise
}

/**
 * In the compiled binary, modules live under /$bunfs/root/ (src/ at build time) and a split
 * chunk's import.meta.url has lost its folder, so the worker is named by its path under src/, as
 * build.ts lists it; from source, next to this file.
 */
function workerUrl(): string {
  return import.meta.url.includes("/$bunfs/")
    ? "./context/search-worker.ts"
    : new URL("./search-worker.ts", import.meta.url).href
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
