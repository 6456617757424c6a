/**
 * Worker entry of the off-loop jobs (jobs.ts). build.ts lists this file as an entry point so the
 * compiled binary contains it; runner.ts starts it by that path.
 */
import { type Job, type Reply, runJob } from "./jobs.ts"
import { bodyTransfers, type ParsedBody } from "./json-body.ts"

declare const self: Worker

self.onmessage = (event: MessageEvent<Job>) => {
  let reply: Reply
  let transfer: ArrayBuffer[] = []
  try {
    const value = runJob(event.data)
    if (event.data.kind === "parse-body") transfer = bodyTransfers(value as ParsedBody)
    reply = { ok: true, value }
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  self.postMessage(reply, transfer)
  // A tool's output decoded here is megabytes of garbage once answered: collected now, while the
  // worker is idle, so the process's memory falls back instead of holding it until the next job.
  if (event.data.kind === "decode" || event.data.kind === "ingest") Bun.gc(true)
}
