/**
 * The MCP stdio transport. The SDK's own stdio transport spawns through Node's child_process in
 * dupin's process group and reads the pipes on the event loop; a server must instead run in a
 * group of its own (so stopping it stops whatever it started), under the tool containment wrapper,
 * with the explicit environment it was given, and its bytes must not reach the event loop (finding
 * R12). So the sandbox is opened here, and the server is started and read by the stdio worker
 * (stdio-worker.ts), one for every server; this side gets the admitted messages.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { log } from "../../log.ts"
import { settledContainment } from "../../tool/containment/index.ts"
import { openSandbox, type SandboxRun } from "../../tool/containment/sandbox.ts"
import { forgetChild, trackChild } from "./children.ts"
import type { FromWorker, ToWorker } from "./stdio-worker.ts"

/** Bytes of one message the client reads before it gives up on the server (bounded memory). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024
const KILL_GRACE_MS = 2000

export type StdioOptions = {
  command: string
  args: readonly string[]
  /** The complete environment of the server. */
  env: Record<string, string>
  /** Where the server may write besides its temp dir (CONTRACT §8); the rest is read-only. */
  writablePaths?: readonly string[]
}

export class BunStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  #id = 0
  #pid: number | undefined
  #sandbox: SandboxRun | undefined
  #stderr = ""
  #closed = false
  #exited = Promise.withResolvers<void>()

  constructor(readonly options: StdioOptions) {}

  /** The last lines the server wrote to stderr (why it died, usually). */
  get stderrTail(): string {
    return this.#stderr.trim()
  }

  get pid(): number | undefined {
    return this.#pid
  }

  async start(): Promise<void> {
    const containment = await settledContainment()
    if (containment.info.refusal) throw new Error(containment.info.refusal)
    const sandbox = openSandbox(containment, {
      env: this.options.env,
      cwd: undefined,
      writable: this.options.writablePaths ?? [],
    })
    this.#sandbox = sandbox
    const started = Promise.withResolvers<void>()
    this.#id = stdioWorker.attach(this, started)
    try {
      stdioWorker.post({
        t: "start",
        id: this.#id,
        argv: sandbox.wrap([this.options.command, ...this.options.args]),
        env: sandbox.env,
        maxMessageBytes: MAX_MESSAGE_BYTES,
      })
      await started.promise
    } catch (error) {
      stdioWorker.detach(this.#id)
      sandbox.cleanup()
      throw error
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#pid === undefined || this.#closed) throw new Error("the MCP server is not running")
    stdioWorker.post({ t: "send", id: this.#id, message })
  }

  async close(): Promise<void> {
    const pid = this.#pid
    if (pid === undefined || this.#closed) return
    stdioWorker.post({ t: "close", id: this.#id })
    killGroup(pid, "SIGTERM")
    const timer = setTimeout(() => killGroup(pid, "SIGKILL"), KILL_GRACE_MS)
    await this.#exited.promise
    clearTimeout(timer)
    this.#ended()
  }

  /** A report of the stdio worker about this server. */
  receive(report: FromWorker, started: PromiseWithResolvers<void>): void {
    switch (report.t) {
      case "started":
        this.#pid = report.pid
        trackChild(report.pid)
        started.resolve()
        return
      case "failed": {
        const command = this.options.command
        if (report.code === "EACCES") started.reject(new Error(`${command}: permission denied`))
        else if (report.code === "ENOENT") started.reject(new Error(`${command}: command not found`))
        else started.reject(new Error(report.message))
        return
      }
      case "message":
        this.onmessage?.(report.message)
        return
      case "stderr":
        this.#stderr = report.tail
        return
      case "warn":
        log.warn(
          report.what === "skipped"
            ? "mcp server: stdout lines that are not JSON-RPC messages are skipped"
            : "mcp server: unsolicited messages past the size or rate bound are dropped",
          { command: this.options.command },
        )
        return
      case "error":
        this.onerror?.(new Error(report.message))
        return
      case "exit":
        this.#exited.resolve()
        this.#ended()
    }
  }

  /** The stdio worker died: the server cannot be read any more. */
  lost(why: string): void {
    this.onerror?.(new Error(`the MCP stdio reader failed: ${why}`))
    this.#exited.resolve()
    this.#ended()
  }

  #ended(): void {
    if (this.#closed) return
    this.#closed = true
    stdioWorker.detach(this.#id)
    const pid = this.#pid
    if (pid !== undefined) {
      // Whatever the server started must not outlive it.
      killGroup(pid, "SIGKILL")
      forgetChild(pid)
    }
    this.#sandbox?.cleanup()
    this.onclose?.()
  }
}

/**
 * The one stdio worker, started with the first server: reports go to their transport by id. It
 * does not keep dupin alive. If it dies, every server it read is lost (killed, and reported to its
 * client as closed); the next server starts a new one.
 */
const stdioWorker = new (class {
  #worker: Worker | undefined
  #nextId = 1
  #transports = new Map<number, { transport: BunStdioTransport; started: PromiseWithResolvers<void> }>()

  attach(transport: BunStdioTransport, started: PromiseWithResolvers<void>): number {
    const id = this.#nextId++
    this.#transports.set(id, { transport, started })
    return id
  }

  detach(id: number): void {
    this.#transports.delete(id)
  }

  post(request: ToWorker): void {
    this.#start().postMessage(request)
  }

  #start(): Worker {
    if (this.#worker) return this.#worker
    const worker = new Worker(workerUrl())
    worker.unref()
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const entry = this.#transports.get(event.data.id)
      entry?.transport.receive(event.data, entry.started)
    }
    worker.onerror = (event) => {
      if (this.#worker !== worker) return
      this.#worker = undefined
      const why = event.message || "it stopped"
      for (const { transport, started } of [...this.#transports.values()]) {
        started.reject(new Error(`the MCP stdio reader failed: ${why}`))
        transport.lost(why)
      }
      worker.terminate()
    }
    this.#worker = worker
    return worker
  }
})()

/** By its path under src/ in the compiled binary (as build.ts lists it), next to this file from source. */
function workerUrl(): string {
  return import.meta.url.includes("/$bunfs/")
    ? "./toolset/mcp/stdio-worker.ts"
    : new URL("./stdio-worker.ts", import.meta.url).href
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: the group is already gone.
  }
}
