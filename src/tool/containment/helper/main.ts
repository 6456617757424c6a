/**
 * The sandbox helper: one long-lived process inside a bubblewrap sandbox that starts every tool
 * process of its view, so the namespaces and mounts are paid for once, not per process (issue 19:
 * 6.6-8.4 ms per bwrap start). It starts each stage in its own process group, streams output
 * back under the run's byte cap, kills a group when dupin asks (abort, timeout) or its leader
 * exits, ends processes that left their run's group, and enforces the memory quotas. It exits
 * when dupin closes its stdin; bwrap's --die-with-parent ends the sandbox if dupin is killed.
 */
import { mkdirSync } from "node:fs"
import type { Subprocess } from "bun"
import { makeNonDumpable } from "../non-dumpable.ts"
import { closeQuietly, osPipe } from "./fifo.ts"
import { listProcesses } from "./memory.ts"
import { FRAME, frame, type HelperRequest, type RunDone, type RunRequest, type StageEnd } from "./protocol.ts"

const DRAIN_GRACE_MS = 500
const SAMPLE_MS = 200

type Active = { request: RunRequest; procs: Subprocess[]; memoryKilled: boolean }

const active = new Map<number, Active>()
const stdout = Bun.stdout.writer()
let totalMemoryBytes = Number.POSITIVE_INFINITY
let sampler: ReturnType<typeof setInterval> | undefined

function send(kind: (typeof FRAME)[keyof typeof FRAME], id: number, payload: Uint8Array): void {
  stdout.write(frame(kind, id, payload))
  stdout.flush()
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: the group is already empty.
  }
}

async function run(request: RunRequest): Promise<void> {
  const entry: Active = { request, procs: [], memoryKilled: false }
  active.set(request.id, entry)
  startSampler()
  let seen = 0
  let forwarded = 0
  const forward = (kind: typeof FRAME.stdout | typeof FRAME.stderr, chunk: Uint8Array) => {
    seen += chunk.byteLength
    const room = request.cap - forwarded
    if (room <= 0) return
    const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room)
    forwarded += part.byteLength
    send(kind, request.id, part)
  }
  const ends: StageEnd[] = request.stages.map(() => ({ exitCode: null, signalCode: null }))
  const finish = (extra: Partial<RunDone> = {}) => {
    active.delete(request.id)
    const done: RunDone = {
      stages: ends,
      seen,
      ...(entry.memoryKilled ? { memoryKilled: true } : {}),
      ...extra,
    }
    send(FRAME.done, request.id, new TextEncoder().encode(JSON.stringify(done)))
    sweep()
  }
  if (request.makeCwd && request.cwd) {
    try {
      mkdirSync(request.cwd, { recursive: true })
    } catch {
      // Then the spawn reports that it cannot start there.
    }
  }
  const tmp = request.env.TMPDIR ?? "/tmp"
  let pipes: Array<{ read: number; write: number }> = []
  const closePipes = () => {
    for (const fd of pipes.flatMap((p) => [p.read, p.write])) closeQuietly(fd)
    pipes = []
  }
  try {
    pipes = request.stages.slice(1).map(() => osPipe(tmp))
  } catch (error) {
    return finish({
      startError: { stage: 0, code: "EPIPE", message: `cannot create a pipe: ${String(error)}` },
    })
  }
  let lastStdout: ReadableStream<Uint8Array> | undefined
  for (const [i, argv] of request.stages.entries()) {
    const isLast = i === request.stages.length - 1
    const input =
      i === 0
        ? request.stdin === null
          ? "ignore"
          : Buffer.from(request.stdin, "base64")
        : pipes[i - 1]!.read
    try {
      const proc = Bun.spawn(argv, {
        env: request.env,
        cwd: request.cwd ?? undefined,
        stdin: input,
        stdout: isLast ? "pipe" : pipes[i]!.write,
        stderr: "pipe",
        detached: true,
      })
      entry.procs.push(proc)
      if (isLast) lastStdout = proc.stdout as ReadableStream<Uint8Array>
    } catch (error) {
      closePipes()
      for (const p of entry.procs) killGroup(p.pid, "SIGKILL")
      const code = (error as { code?: string } | null)?.code ?? "EFAIL"
      return finish({
        startError: { stage: i, code, message: error instanceof Error ? error.message : String(error) },
      })
    }
  }
  // Our copies of the pipe ends would keep readers from seeing EOF and writers from SIGPIPE.
  closePipes()
  const cancels: Array<() => void> = []
  const drain = async (
    stream: ReadableStream<Uint8Array>,
    kind: typeof FRAME.stdout | typeof FRAME.stderr,
  ) => {
    const reader = stream.getReader()
    cancels.push(() => void reader.cancel().catch(() => {}))
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        forward(kind, value)
      }
    } catch {
      // A cancelled or broken pipe ends the output.
    }
  }
  const drains = entry.procs.map((p) => drain(p.stderr as ReadableStream<Uint8Array>, FRAME.stderr))
  if (lastStdout) drains.push(drain(lastStdout, FRAME.stdout))
  await Promise.all(
    entry.procs.map(async (p, i) => {
      await p.exited
      ends[i] = {
        exitCode: p.signalCode ? null : p.exitCode,
        signalCode: p.signalCode ? String(p.signalCode) : null,
      }
      // Background children (`sleep 1000 &`) must not outlive their leader.
      killGroup(p.pid, "SIGKILL")
    }),
  )
  // A killed group of a thousand processes takes a while to go on a loaded host: the run ends
  // once they are gone, as it did when the pid namespace ended with it.
  await groupsGone(entry.procs.map((p) => p.pid))
  await Promise.race([Promise.all(drains), Bun.sleep(DRAIN_GRACE_MS)])
  for (const cancel of cancels) cancel()
  finish()
}

const GROUP_GONE_MS = 5000

async function groupsGone(pids: number[]): Promise<void> {
  const deadline = performance.now() + GROUP_GONE_MS
  for (const pid of pids) {
    while (performance.now() < deadline && groupExists(pid)) {
      killGroup(pid, "SIGKILL")
      await Bun.sleep(10)
    }
  }
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Ends every process that belongs to no running run: a tool's child that left its process group
 * (setsid, a double fork) must not outlive the run, as it could not when each run had its own
 * pid namespace.
 */
function sweep(): void {
  const groups = new Set<number>()
  for (const entry of active.values()) for (const p of entry.procs) groups.add(p.pid)
  const own = process.pid
  for (const proc of listProcesses()) {
    // A child the helper is starting right now has not yet made its own group.
    if (proc.ppid === own) continue
    if (!groups.has(proc.pgrp)) killGroupOrProcess(proc.pid)
  }
}

function killGroupOrProcess(pid: number): void {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // Gone already.
  }
}

/** Sums resident memory per request and in total; kills runs past their quota. */
function sample(): void {
  if (active.size === 0) {
    clearInterval(sampler)
    sampler = undefined
    return
  }
  const byGroup = new Map<number, number>()
  let total = 0
  for (const proc of listProcesses()) {
    byGroup.set(proc.pgrp, (byGroup.get(proc.pgrp) ?? 0) + proc.rssBytes)
    total += proc.rssBytes
  }
  const perRequest = new Map<string, { bytes: number; quota: number; runs: Active[] }>()
  for (const entry of active.values()) {
    const key = entry.request.group
    const slot = perRequest.get(key) ?? { bytes: 0, quota: entry.request.memoryBytes, runs: [] }
    for (const p of entry.procs) slot.bytes += byGroup.get(p.pid) ?? 0
    slot.runs.push(entry)
    perRequest.set(key, slot)
  }
  const over = [...perRequest.values()].filter((r) => r.bytes > r.quota)
  if (total > totalMemoryBytes) {
    // Past the sandbox's total: the request holding the most gives way.
    const biggest = [...perRequest.values()].sort((a, b) => b.bytes - a.bytes)[0]
    if (biggest && !over.includes(biggest)) over.push(biggest)
  }
  for (const request of over) {
    for (const entry of request.runs) {
      entry.memoryKilled = true
      for (const p of entry.procs) killGroup(p.pid, "SIGKILL")
    }
  }
  sweep()
}

function startSampler(): void {
  sampler ??= setInterval(sample, SAMPLE_MS)
}

function handle(request: HelperRequest): void {
  if (request.t === "run") {
    void run(request)
  } else if (request.t === "kill") {
    for (const p of active.get(request.id)?.procs ?? []) killGroup(p.pid, request.signal)
  } else if (request.t === "limit") {
    totalMemoryBytes = request.totalMemoryBytes
  }
}

export async function helperMain(): Promise<void> {
  // The helper's pipes carry every run's requests and output: a tool (same user) must not open
  // them through /proc/<helper>/fd and forge another run's output or start runs of its own.
  makeNonDumpable()
  send(FRAME.ready, 0, new Uint8Array(0))
  const decoder = new TextDecoder()
  let buffered = ""
  for await (const chunk of Bun.stdin.stream()) {
    buffered += decoder.decode(chunk, { stream: true })
    let newline = buffered.indexOf("\n")
    while (newline >= 0) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      if (line) handle(JSON.parse(line) as HelperRequest)
      newline = buffered.indexOf("\n")
    }
  }
  // dupin closed the pipe (it exited, or stopped the sandbox): nothing may be left behind.
  for (const entry of active.values()) for (const p of entry.procs) killGroup(p.pid, "SIGKILL")
  process.exit(0)
}

if (import.meta.main) await helperMain()
