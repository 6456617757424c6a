/**
 * dupin's side of one long-lived sandbox (one per view): starts bubblewrap with the helper inside,
 * sends it runs and kills, and hands each run's output and end to its caller. A helper that dies
 * fails the runs it held and is started again on the next run; it dies with dupin (bwrap's
 * --die-with-parent, and the helper exits when its stdin closes).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import type { Subprocess } from "bun"
import { raceAbort } from "../../abort.ts"
import { bwrapArgs } from "./bwrap.ts"
import { SYSTEM_PATH } from "./detect.ts"
import { FRAME, FrameReader, type HelperRequest, type RunDone, type RunRequest } from "./helper/protocol.ts"
import { helperArgv, helperPaths } from "./helper-command.ts"
import type { ContainmentState } from "./index.ts"
import { HELPER_MIN_ADDRESS_SPACE, prlimitArgs } from "./rlimits.ts"
import { type SandboxView, viewPlan } from "./views.ts"

/** How long a helper may take to say it is ready (a cold compiled binary on a loaded host). */
const START_TIMEOUT_MS = 15_000

export type RunHandlers = {
  onOutput(stream: "stdout" | "stderr", bytes: Uint8Array): void
}

type Pending = { handlers: RunHandlers; resolve: (done: RunDone) => void }

export class HelperSandbox {
  #proc: Subprocess<"pipe", "pipe", "pipe"> | undefined
  #ready: Promise<void> | undefined
  #pending = new Map<number, Pending>()
  #nextId = 1
  #stderr = ""
  /** The view's run area: the one writable host folder every run's temp dir is made in. */
  readonly area: string

  constructor(
    readonly containment: ContainmentState,
    readonly view: SandboxView,
    readonly env: Record<string, string>,
    readonly totalMemoryBytes: number,
  ) {
    this.area = mkdtempSync(join(containment.runsDir ?? "/tmp", `${view}-`))
  }

  /** The helper's process id on the host (tests kill it to prove a restart). */
  get pid(): number | undefined {
    return this.#proc?.pid
  }

  /**
   * Sends one run. Waits for the helper to be ready (the caller's signal ends only this wait: a
   * start other runs wait for goes on); rejects when it cannot start.
   */
  async run(
    request: Omit<RunRequest, "t" | "id">,
    handlers: RunHandlers,
    signal: AbortSignal,
  ): Promise<{ id: number; done: Promise<RunDone> }> {
    await raceAbort(this.#start(), signal, () => new Error("aborted"))
    const id = this.#nextId++
    // The helper may have died between its start and this run.
    if (!this.#proc) return { id, done: Promise.resolve(ended("the tool sandbox ended")) }
    const done = new Promise<RunDone>((resolve) => this.#pending.set(id, { handlers, resolve }))
    this.#send({ t: "run", id, ...request })
    return { id, done }
  }

  /** Starts the helper ahead of the first run (serve: the first conversation does not wait for it). */
  warm(): void {
    try {
      this.#start().catch(() => {})
    } catch {
      // Retried, with the reason, by the first run.
    }
  }

  kill(id: number, signal: "SIGTERM" | "SIGKILL"): void {
    if (this.#pending.has(id)) this.#send({ t: "kill", id, signal })
  }

  /** Ends the helper and every process in its sandbox. */
  stop(): void {
    const proc = this.#proc
    if (!proc) return
    killGroup(proc.pid, "SIGKILL")
  }

  dispose(): void {
    this.stop()
    rmSync(this.area, { recursive: true, force: true })
  }

  #send(request: HelperRequest): void {
    const proc = this.#proc
    if (!proc) return
    try {
      proc.stdin.write(`${JSON.stringify(request)}\n`)
      proc.stdin.flush()
    } catch {
      // The helper is gone; its exit fails the pending runs.
    }
  }

  #start(): Promise<void> {
    if (this.#ready) return this.#ready
    const { programs, info, flavor } = this.containment
    if (!programs.bwrap) throw new Error("bubblewrap is not available")
    const cat = Bun.which("cat", { PATH: SYSTEM_PATH })
    if (!cat) throw new Error("cat is not available")
    const plan = viewPlan(this.containment, this.view, this.area, this.env, helperPaths())
    const limits =
      info.limits && programs.prlimit
        ? prlimitArgs(
            programs.prlimit,
            info.limits,
            true,
            info.limits.addressSpaceBytes >= HELPER_MIN_ADDRESS_SPACE,
          )
        : []
    const argv = [
      ...bwrapArgs(programs.bwrap, { ...plan, cwd: "/", helper: true }),
      ...limits,
      ...helperArgv(),
    ]
    const proc = Bun.spawn(argv, {
      env: {
        PATH: SYSTEM_PATH,
        TMPDIR: this.area,
        BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
        DUPIN_RUN_PROC: flavor.proc,
        DUPIN_RUN_INIT: cat,
      },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    })
    proc.unref()
    this.#proc = proc
    this.#stderr = ""
    let ready: () => void = () => {}
    let failed: (error: Error) => void = () => {}
    const started = new Promise<void>((resolve, reject) => {
      ready = resolve
      failed = reject
    })
    void this.#read(proc, ready)
    void this.#readStderr(proc)
    void proc.exited.then(() => {
      failed(new Error(`the tool sandbox did not start: ${this.#stderr.trim() || `exit ${proc.exitCode}`}`))
      this.#ended(proc)
    })
    const timer = setTimeout(
      () => failed(new Error("the tool sandbox did not start in time")),
      START_TIMEOUT_MS,
    )
    this.#ready = started.finally(() => clearTimeout(timer))
    this.#ready.catch(() => {
      // A start that failed is retried by the next run.
      if (this.#proc === proc) {
        killGroup(proc.pid, "SIGKILL")
        this.#ready = undefined
      }
    })
    if (Number.isFinite(this.totalMemoryBytes))
      void this.#ready
        .then(() => this.#send({ t: "limit", totalMemoryBytes: this.totalMemoryBytes }))
        .catch(() => {})
    return this.#ready
  }

  async #read(proc: Subprocess<"pipe", "pipe", "pipe">, ready: () => void): Promise<void> {
    const frames = new FrameReader()
    // The helper's stdout is read for as long as it lives, without keeping dupin alive for it.
    const stream = proc.stdout as ReadableStream<Uint8Array>
    try {
      for await (const chunk of stream) {
        for (const f of frames.push(chunk)) {
          if (f.kind === FRAME.ready) ready()
          const pending = this.#pending.get(f.id)
          if (!pending) continue
          if (f.kind === FRAME.stdout) pending.handlers.onOutput("stdout", f.payload)
          else if (f.kind === FRAME.stderr) pending.handlers.onOutput("stderr", f.payload)
          else if (f.kind === FRAME.done) {
            this.#pending.delete(f.id)
            pending.resolve(JSON.parse(new TextDecoder().decode(f.payload)) as RunDone)
          }
        }
      }
    } catch {
      // The pipe broke with the helper; its exit handler fails the pending runs.
    }
  }

  async #readStderr(proc: Subprocess<"pipe", "pipe", "pipe">): Promise<void> {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
        this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true })).slice(-2048)
      }
    } catch {
      // Closed with the process.
    }
  }

  /** The helper died: its runs end as failures, and the next run starts a new one. */
  #ended(proc: Subprocess): void {
    if (this.#proc !== proc) return
    this.#proc = undefined
    this.#ready = undefined
    killGroup(proc.pid, "SIGKILL")
    const why = this.#stderr.trim()
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id)
      pending.resolve(ended(`the tool sandbox ended${why ? `: ${why}` : ""}`))
    }
  }
}

/** The end of a run whose helper died: a start failure the caller reports as exit 126. */
function ended(message: string): RunDone {
  return { stages: [], seen: 0, startError: { stage: 0, code: "EHELPER", message } }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: gone already.
  }
}
