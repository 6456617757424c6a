/**
 * The MCP stdio transport on Bun.spawn. The SDK's own stdio transport spawns through Node's
 * child_process in dupin's process group; a server must instead run in a group of its own (so
 * stopping it stops whatever it started), under the tool containment wrapper, with the explicit
 * environment it was given. Messages are written with the SDK's serializeMessage and read by
 * MessageLines (stdio-lines.ts).
 */
import { type JSONRPCMessage, serializeMessage, type Transport } from "@modelcontextprotocol/client"
import type { Subprocess } from "bun"
import { log } from "../../log.ts"
import { JobTimeout, offLoop } from "../../offloop/runner.ts"
import { currentContainment } from "../../tool/containment/index.ts"
import { openSandbox, type SandboxRun } from "../../tool/containment/sandbox.ts"
import { forgetChild, trackChild } from "./children.ts"
import { INLINE_LINE_BYTES, InboundGate } from "./inbound-gate.ts"
import { MessageLines } from "./stdio-lines.ts"

/** Bytes of one message the client reads before it gives up on the server (bounded memory). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024
/** Bytes of the server's stderr kept for error messages. */
const STDERR_TAIL_BYTES = 2048
const KILL_GRACE_MS = 2000
/** Parsing a long line off the loop takes well under a second per 32 MiB; past this it is dropped. */
const PARSE_DEADLINE_MS = 10_000

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
  #proc: Subprocess<"pipe", "pipe", "pipe"> | undefined
  #sandbox: SandboxRun | undefined
  #gate = new InboundGate()
  #lines = new MessageLines(MAX_MESSAGE_BYTES, INLINE_LINE_BYTES, () => this.#gate.awaiting)
  /** Aborted when the transport ends: a long line still being parsed is given up. */
  #stop = new AbortController()
  #stderr = ""
  #closed = false

  constructor(readonly options: StdioOptions) {}

  /** The last lines the server wrote to stderr (why it died, usually). */
  get stderrTail(): string {
    return this.#stderr.trim()
  }

  get pid(): number | undefined {
    return this.#proc?.pid
  }

  async start(): Promise<void> {
    const containment = currentContainment()
    if (containment.info.refusal) throw new Error(containment.info.refusal)
    const sandbox = openSandbox(containment, {
      env: this.options.env,
      cwd: undefined,
      writable: this.options.writablePaths ?? [],
    })
    this.#sandbox = sandbox
    let proc: Subprocess<"pipe", "pipe", "pipe">
    try {
      proc = Bun.spawn(sandbox.wrap([this.options.command, ...this.options.args]), {
        env: sandbox.env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        detached: true,
      })
    } catch (error) {
      sandbox.cleanup()
      const code = (error as { code?: string }).code
      const command = this.options.command
      if (code === "EACCES") throw new Error(`${command}: permission denied`)
      if (code === "ENOENT") throw new Error(`${command}: command not found`)
      throw error
    }
    this.#proc = proc
    proc.unref()
    trackChild(proc.pid)
    void this.#read(proc.stdout)
    void this.#readStderr(proc.stderr)
    void proc.exited.then(() => this.#ended())
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const proc = this.#proc
    if (!proc || this.#closed) throw new Error("the MCP server is not running")
    this.#gate.sent(message)
    proc.stdin.write(serializeMessage(message))
    await proc.stdin.flush()
  }

  async close(): Promise<void> {
    const proc = this.#proc
    if (!proc || this.#closed) return
    try {
      await proc.stdin.end()
    } catch {
      // The server already closed its stdin.
    }
    killGroup(proc.pid, "SIGTERM")
    const timer = setTimeout(() => killGroup(proc.pid, "SIGKILL"), KILL_GRACE_MS)
    await proc.exited
    clearTimeout(timer)
    this.#ended()
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) {
        const skipped = this.#lines.skipped
        const dropped = this.#gate.dropped + this.#lines.dropped
        for (const line of this.#lines.push(chunk)) {
          // Awaited: the server's next lines wait (in its pipe) while a long one is parsed.
          const message = line.kind === "message" ? line.message : await this.#parseLong(line.bytes)
          if (message && this.#gate.admit(message)) this.onmessage?.(message)
        }
        if (skipped === 0 && this.#lines.skipped > 0)
          log.warn("mcp server: stdout lines that are not JSON-RPC messages are skipped", {
            command: this.options.command,
          })
        if (dropped === 0 && this.#gate.dropped + this.#lines.dropped > 0)
          log.warn("mcp server: unsolicited messages past the size or rate bound are dropped", {
            command: this.options.command,
          })
      }
    } catch (error) {
      // An oversized message: the connection cannot be trusted past it.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      this.#lines.clear()
      if (this.#proc) killGroup(this.#proc.pid, "SIGKILL")
    }
  }

  /** A long line: dropped unread unless we wait for a response, then parsed in a worker. */
  async #parseLong(bytes: Uint8Array): Promise<JSONRPCMessage | undefined> {
    if (!this.#gate.awaiting) {
      this.#gate.drop()
      return undefined
    }
    try {
      const response = await offLoop({ kind: "parse-response", bytes }, PARSE_DEADLINE_MS, this.#stop.signal)
      if (!response) this.#gate.drop()
      return response as JSONRPCMessage | undefined
    } catch (error) {
      if (this.#stop.signal.aborted) return undefined
      if (!(error instanceof JobTimeout)) throw error
      this.#gate.drop()
      return undefined
    }
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of stream) {
        this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES)
      }
    } catch {
      // The pipe closed with the process.
    }
  }

  #ended(): void {
    if (this.#closed) return
    this.#closed = true
    this.#stop.abort()
    const proc = this.#proc
    if (proc) {
      // Whatever the server started must not outlive it.
      killGroup(proc.pid, "SIGKILL")
      forgetChild(proc.pid)
    }
    this.#sandbox?.cleanup()
    this.#lines.clear()
    this.onclose?.()
  }
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: the group is already gone.
  }
}
