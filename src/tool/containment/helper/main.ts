import {
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs"
import { join } from "node:path"
import { makeNonDumpable } from "../non-dumpable.ts"
import { Children, endOf, killGroup } from "./children.ts"
import { listProcesses } from "./memory.ts"
import { FRAME, frame, type HelperRequest, type RunDone, type RunRequest, type StageEnd } from "./protocol.ts"
import { closeFd, type RunNamespace, RunNamespaces, StartError } from "./run-ns.ts"
import { RunOutput } from "./run-output.ts"

const DRAIN_GRACE_MS = 500
const SAMPLE_MS = 200
/**
 * Namespaces made ahead (and kept after a run that left nothing behind), enough for a burst of
 * parallel calls: a run takes one, and more are made once no run is under way (made while one
 * runs, the making would delay it: the helper has one thread). Each is a `cat` and two namespaces.
 */
const SPARES = 8
const GONE_MS = 5000

/** `killed`: its namespace's init was killed (a timeout or SIGKILL), so the namespace is never reused. */
type Active = {
  request: RunRequest
  pids: number[]
  ns: RunNamespace
  memoryKilled: boolean
  killed: boolean
}

const active = new Map<number, Active>()
const stdout = Bun.stdout.writer()
let totalMemoryBytes = Number.POSITIVE_INFINITY
let sampler: ReturnType<typeof setInterval> | undefined
/** The view's run area (the helper's TMPDIR): every run's folder is made here. */
const area = process.env.TMPDIR ?? "/tmp"
/** `host`: this host cannot mount a fresh /proc; runs see the host's (see ProcView). */
const privateProc = process.env.DUPIN_RUN_PROC !== "host"
const initProgram = process.env.DUPIN_RUN_INIT ?? "/bin/cat"
let namespaces: RunNamespaces
const spares: RunNamespace[] = []
let refilling = false

function makeNamespace(): RunNamespace {
  const dir = mkdtempSync(join(area, "run-"))
  try {
    return namespaces.make(area, dir, initProgram, privateProc)
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/**
 * Tops the spares up, one per turn of the event loop, while no run is under way: making one is a
 * clone, mounts and an exec (2-8 ms of the helper's one thread), which a run's start, exit and
 * output would wait for. The last run to end calls this again.
 */
function refill(): void {
  if (refilling || active.size > 0 || spares.length >= SPARES) return
  refilling = true
  setTimeout(() => {
    refilling = false
    if (active.size > 0) return
    try {
      spares.push(makeNamespace())
    } catch {
      // The next run makes its own and reports why it cannot.
      return
    }
    refill()
  }, 0)
}

function send(kind: (typeof FRAME)[keyof typeof FRAME], id: number, payload: Uint8Array): void {
  stdout.write(frame(kind, id, payload))
  stdout.flush()
}

async function run(request: RunRequest): Promise<void> {
  const output = new RunOutput(request.id, request.cap, area)
  const ends: StageEnd[] = request.stages.map(() => ({ exitCode: null, signalCode: null }))
  const reply = (extra: Partial<RunDone>, memoryKilled = false) => {
    active.delete(request.id)
    const done: RunDone = {
      stages: ends,
      seen: output.seen,
      ...(memoryKilled ? { memoryKilled: true } : {}),
      ...extra,
    }
    for (const f of output.finish(done)) stdout.write(f)
    send(FRAME.done, request.id, new TextEncoder().encode(JSON.stringify(done)))
  }
  let ns: RunNamespace
  try {
    ns = liveSpare() ?? makeNamespace()
  } catch (error) {
    return reply({ startError: { stage: 0, code: "EHELPER", message: String(error) } })
  }
  const entry: Active = { request, pids: [], ns, memoryKilled: false, killed: false }
  active.set(request.id, entry)
  startSampler()
  if (request.makeCwd && request.cwd) {
    try {
      mkdirSync(request.cwd, { recursive: true })
    } catch {
      // Then the spawn reports that it cannot start there.
    }
  }
  const env: Record<string, string> = { ...request.env, TMPDIR: ns.dir }
  // HOME may be private and is not the place for caches: kubectl and helm keep theirs per run.
  env.KUBECACHEDIR ??= join(ns.dir, "kube-cache")
  env.HELM_CACHE_HOME ??= join(ns.dir, "helm-cache")
  // Every descriptor here is the helper's until the stages are started; then only the readers.
  const ours: number[] = []
  const readers: Array<{ fd: number; kind: typeof FRAME.stdout | typeof FRAME.stderr }> = []
  let failed: RunDone["startError"]
  try {
    let input = -1
    if (request.stdin !== null) {
      // What the first stage reads, from a file in the run's own folder (no writer to feed).
      const file = join(ns.dir, ".stdin")
      writeFileSync(file, Buffer.from(request.stdin, "base64"), { mode: 0o600 })
      input = openSync(file, "r")
      unlinkSync(file)
      ours.push(input)
    }
    for (const [i, argv] of request.stages.entries()) {
      const isLast = i === request.stages.length - 1
      const err = namespaces.pipe()
      ours.push(err.write)
      readers.push({ fd: err.read, kind: FRAME.stderr })
      // Stage N writes straight into a kernel pipe that stage N+1 reads.
      const out = namespaces.pipe()
      ours.push(out.write)
      if (isLast) readers.push({ fd: out.read, kind: FRAME.stdout })
      else ours.push(out.read)
      try {
        entry.pids.push(namespaces.spawn(ns, argv, env, request.cwd, [input, out.write, err.write]))
      } catch (error) {
        const code = error instanceof StartError ? error.code : "EFAIL"
        failed = { stage: i, code, message: error instanceof Error ? error.message : String(error) }
        break
      }
      input = out.read
    }
  } catch (error) {
    failed ??= { stage: 0, code: "EPIPE", message: `cannot create a pipe: ${String(error)}` }
  }
  // Our copies of the pipe ends would keep readers from seeing EOF and writers from SIGPIPE.
  for (const fd of ours) closeFd(fd)
  const cancels: Array<() => void> = []
  let open = 0
  const drain = async (fd: number, kind: typeof FRAME.stdout | typeof FRAME.stderr) => {
    open++
    const reader = Bun.file(fd).stream().getReader()
    cancels.push(() => void reader.cancel().catch(() => {}))
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        output.keep(kind, value)
      }
    } catch {
      // A cancelled or broken pipe ends the output.
    } finally {
      open--
    }
  }
  const drains = failed ? [] : readers.map((r) => drain(r.fd, r.kind))
  if (!failed) {
    await Promise.all(
      entry.pids.map(async (pid, i) => {
        ends[i] = endOf(await exited(pid))
        // Background children (`sleep 1000 &`) must not outlive their leader.
        killGroup(pid, "SIGKILL")
      }),
    )
  } else {
    for (const pid of entry.pids) killGroup(pid, "SIGKILL")
  }
  // Whatever is left (setsid, double forks) dies with the namespace, before the run ends. A
  // namespace with nothing left in it but its init is kept for a later run instead.
  const reusable = !failed && !entry.killed && privateProc && onlyInit(ns)
  if (!reusable) await end(ns)
  // Only a process outside the namespace could still hold a pipe: it must not hold the run.
  if (open > 0) await Promise.race([Promise.all(drains), Bun.sleep(DRAIN_GRACE_MS)])
  for (const cancel of cancels) cancel()
  for (const r of readers) closeFd(r.fd)
  reply(failed ? { startError: failed } : {}, entry.memoryKilled)
  // Runs still under way bring their namespaces back too: those count as spares already.
  if (reusable && spares.length + active.size < SPARES && emptied(ns.dir)) spares.push(ns)
  else {
    await end(ns)
    rmSync(ns.dir, { recursive: true, force: true })
  }
  refill()
}

/**
 * Empties a run's folder for the next run of the namespace (the folder itself stays: the
 * namespace's bind mount holds it). False when something could not be removed.
 */
function emptied(dir: string): boolean {
  try {
    const names = readdirSync(dir)
    if (names.length === 0) return true
    for (const name of names) rmSync(join(dir, name), { recursive: true, force: true })
    return readdirSync(dir).length === 0
  } catch {
    return false
  }
}

/** The helper's own children (stages, namespace inits), reaped when SIGCHLD says one ended. */
const children = new Children((pid) => namespaces.reap(pid))
const exited = (pid: number) => children.exited(pid)

/**
 * Ends a run's namespace and waits until every process in it is gone: a killed thousand forks
 * take a while to go on a loaded host, and the run ends once they have, so nothing it started is
 * still running when dupin hears of its end. With nothing left but the init, no wait.
 */
async function end(ns: RunNamespace): Promise<void> {
  if (ns.life < 0) return
  const alone = privateProc && onlyInit(ns)
  namespaces.end(ns)
  const gone = exited(ns.init)
  if (alone) return
  await Promise.race([gone, Bun.sleep(GONE_MS)])
}

/**
 * Whether the run's namespace holds its init, alive, and nothing else. Once a run's stages are
 * reaped, whatever is left in its pid namespace descends from the init (the kernel gives a pid
 * namespace's orphans to its init), so an init without children is alone. A killed init stays a
 * zombie until the helper reaps it, and a pid namespace whose init died starts nothing more
 * (fork fails with ENOMEM), so an init that has ended is no init. Reading one /proc file costs a
 * fraction of listing the run's /proc (where the init is pid 1); a kernel without the children
 * file is asked that way.
 */
function onlyInit(ns: RunNamespace): boolean {
  if (namespaces.reap(ns.init) !== null) return false
  let children: string
  try {
    children = readFileSync(`/proc/self/fd/${ns.proc}/1/task/1/children`, "latin1")
  } catch {
    return onlyInitListed(ns)
  }
  return children.trim() === ""
}

/** onlyInit from the run's /proc listing: its init, alive, and nothing else. */
function onlyInitListed(ns: RunNamespace): boolean {
  try {
    const root = `/proc/self/fd/${ns.proc}`
    const pids = readdirSync(root).filter((name) => /^\d+$/.test(name))
    if (pids.length !== 1 || pids[0] !== "1") return false
    const stat = readFileSync(`${root}/1/stat`, "latin1")
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    return state !== "Z" && state !== "X"
  } catch {
    return false
  }
}

/** A spare whose init still lives (one killed from outside is ended and left), or undefined. */
function liveSpare(): RunNamespace | undefined {
  for (let ns = spares.pop(); ns; ns = spares.pop()) {
    if (!privateProc || onlyInit(ns)) return ns
    void end(ns).then(() => rmSync(ns.dir, { recursive: true, force: true }))
  }
  return undefined
}

/** The processes of one run, from its own /proc (or the host's, filtered by namespace). */
function runProcesses(ns: RunNamespace) {
  const root = `/proc/self/fd/${ns.proc}`
  if (privateProc) return listProcesses(root)
  let link: string
  try {
    link = readlinkSync(`/proc/self/fd/${ns.pid}`)
  } catch {
    return []
  }
  return listProcesses(root, link)
}

/** Sums resident memory per request and in total; kills runs past their quota. */
function sample(): void {
  if (active.size === 0) {
    clearInterval(sampler)
    sampler = undefined
    return
  }
  let total = 0
  const perRequest = new Map<string, { bytes: number; quota: number; runs: Active[] }>()
  for (const entry of active.values()) {
    const key = entry.request.group
    const slot = perRequest.get(key) ?? { bytes: 0, quota: entry.request.memoryBytes, runs: [] }
    for (const proc of runProcesses(entry.ns)) {
      slot.bytes += proc.rssBytes
      total += proc.rssBytes
    }
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
      killRun(entry)
    }
  }
}

function killRun(entry: Active): void {
  entry.killed = true
  for (const pid of entry.pids) killGroup(pid, "SIGKILL")
  try {
    process.kill(entry.ns.init, "SIGKILL")
  } catch {
    // Gone already.
  }
}

function startSampler(): void {
  sampler ??= setInterval(sample, SAMPLE_MS)
}

function handle(request: HelperRequest): void {
  if (request.t === "run") {
    void run(request)
  } else if (request.t === "kill") {
    const entry = active.get(request.id)
    if (!entry) return
    if (request.signal === "SIGKILL") killRun(entry)
    else for (const pid of entry.pids) killGroup(pid, request.signal)
  } else if (request.t === "limit") {
    totalMemoryBytes = request.totalMemoryBytes
  }
}

export async function helperMain(): Promise<void> {
  // The helper's pipes carry every run's requests and output: a tool (same user) must not open
  // them through /proc/<helper>/fd and forge another run's output or start runs of its own.
  makeNonDumpable()
  try {
    namespaces = RunNamespaces.load(area)
    process.on("SIGCHLD", () => children.reap())
    spares.push(makeNamespace())
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
  send(FRAME.ready, 0, new Uint8Array(0))
  refill()
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
  for (const entry of active.values()) killRun(entry)
  for (const ns of spares) namespaces.end(ns)
  process.exit(0)
}

if (import.meta.main) await helperMain()
