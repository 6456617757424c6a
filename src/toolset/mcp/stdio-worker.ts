/**
 * The pipes of every stdio MCP server, in a worker thread. A server's stdout and stderr are bytes
 * whose size and rate the server alone chooses: read on the event loop, 16 MB lines several times
 * a second were 50 MB/s of fresh memory for the main thread's collector, whose pauses held
 * /healthz over 100 ms even with every long line dropped unread (finding R12). Here the bytes land
 * in this thread's heap; the main thread receives only the messages the gate admits (inbound-gate.ts)
 * and a throttled tail of stderr. The worker starts the servers itself (Bun.spawn in this thread),
 * so their pipes are never the main thread's; the main thread keeps each server's process group
 * (stdio-transport.ts) and kills it.
 *
 * build.ts lists this file as an entry point so the compiled binary contains it.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client"
import type { Subprocess } from "bun"
import { INLINE_LINE_BYTES, InboundGate } from "./inbound-gate.ts"
import { MessageLines, responseIn } from "./stdio-lines.ts"

/** What the main thread asks (stdio-transport.ts). */
export type ToWorker =
  | { t: "start"; id: number; argv: string[]; env: Record<string, string>; maxMessageBytes: number }
  | { t: "send"; id: number; message: JSONRPCMessage }
  | { t: "close"; id: number }

/** What the worker reports, per server, in order: the last tail of stderr comes before `exit`. */
export type FromWorker =
  | { t: "started"; id: number; pid: number }
  | { t: "failed"; id: number; code: string; message: string }
  | { t: "message"; id: number; message: JSONRPCMessage }
  | { t: "stderr"; id: number; tail: string }
  | { t: "warn"; id: number; what: "skipped" | "dropped" }
  | { t: "error"; id: number; message: string }
  | { t: "exit"; id: number; code: number | null }

/** Bytes of a server's stderr kept for error messages. */
const STDERR_TAIL_BYTES = 2048
/** A changed stderr tail is sent at most this often (a server may write megabytes a second). */
const TAIL_EVERY_MS = 250
/** Reads still running this long after the server exited are not waited for (a grandchild holds the pipe). */
const READ_GRACE_MS = 500

declare const self: Worker

type Server = { proc: Subprocess<"pipe", "pipe", "pipe">; gate: InboundGate }
const servers = new Map<number, Server>()

const post = (message: FromWorker) => self.postMessage(message)

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const request = event.data
  if (request.t === "start") start(request)
  else if (request.t === "send") send(request.id, request.message)
  else void servers.get(request.id)?.proc.stdin.end()
}

function start({ id, argv, env, maxMessageBytes }: Extract<ToWorker, { t: "start" }>): void {
  let proc: Subprocess<"pipe", "pipe", "pipe">
  try {
    proc = Bun.spawn(argv, { env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true })
  } catch (error) {
    const code = String((error as { code?: string }).code ?? "")
    post({ t: "failed", id, code, message: error instanceof Error ? error.message : String(error) })
    return
  }
  const server: Server = { proc, gate: new InboundGate() }
  servers.set(id, server)
  post({ t: "started", id, pid: proc.pid })
  const reads = Promise.all([readMessages(id, server, maxMessageBytes), readStderr(id, proc.stderr)])
  void proc.exited.then(async () => {
    // What the server wrote before it ended still reaches the client, then the end.
    await Promise.race([reads, Bun.sleep(READ_GRACE_MS)])
    servers.delete(id)
    post({ t: "exit", id, code: proc.exitCode })
  })
}

function send(id: number, message: JSONRPCMessage): void {
  const server = servers.get(id)
  if (!server) return
  server.gate.sent(message)
  try {
    server.proc.stdin.write(`${JSON.stringify(message)}\n`)
    server.proc.stdin.flush()
  } catch {
    // The server closed its stdin or ended: its exit follows.
  }
}

async function readMessages(id: number, { proc, gate }: Server, max: number): Promise<void> {
  const lines = new MessageLines(max, INLINE_LINE_BYTES, () => gate.awaiting)
  let warnedSkip = false
  let warnedDrop = false
  try {
    for await (const chunk of proc.stdout) {
      for (const line of lines.push(chunk)) {
        let message: JSONRPCMessage | undefined
        if (line.kind === "message") message = line.message
        else if (gate.awaiting) message = responseIn(line.bytes)
        if (!message) {
          if (line.kind === "long") gate.drop()
          continue
        }
        if (gate.admit(message)) post({ t: "message", id, message })
      }
      if (!warnedSkip && lines.skipped > 0) {
        warnedSkip = true
        post({ t: "warn", id, what: "skipped" })
      }
      if (!warnedDrop && gate.dropped + lines.dropped > 0) {
        warnedDrop = true
        post({ t: "warn", id, what: "dropped" })
      }
    }
  } catch (error) {
    // An oversized message: the connection cannot be trusted past it.
    lines.clear()
    post({ t: "error", id, message: error instanceof Error ? error.message : String(error) })
    try {
      process.kill(-proc.pid, "SIGKILL")
    } catch {
      // Gone already.
    }
  }
}

async function readStderr(id: number, stream: ReadableStream<Uint8Array>): Promise<void> {
  const decoder = new TextDecoder()
  let tail = ""
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    timer = undefined
    post({ t: "stderr", id, tail })
  }
  try {
    for await (const chunk of stream) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES)
      timer ??= setTimeout(flush, TAIL_EVERY_MS)
    }
  } catch {
    // The pipe closed with the process.
  }
  clearTimeout(timer)
  if (tail) flush()
}
