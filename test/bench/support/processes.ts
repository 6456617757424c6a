/** Starting the helper processes the benchmarks and reliability tests measure or talk to. */
import { tmpdir } from "node:os"
import type { Subprocess } from "bun"
import type { ProviderScript, ProviderStats } from "./provider-process.ts"

const HERE = import.meta.dir
export const REPO = `${HERE}/../../..`

export type ProviderProcess = {
  url: string
  proc: Subprocess
  stats(): Promise<ProviderStats>
  reset(): Promise<void>
  stop(): Promise<void>
}

export async function startProviderProcess(script: ProviderScript): Promise<ProviderProcess> {
  const proc = Bun.spawn(["bun", `${HERE}/provider-process.ts`, JSON.stringify(script)], {
    stdout: "pipe",
    stderr: "inherit",
    cwd: REPO,
  })
  const line = await firstLine(proc.stdout as ReadableStream<Uint8Array>, /^READY (\S+) (\S+)/, 15_000)
  const [, url, control] = line
  return {
    url: url!,
    proc,
    stats: async () => (await (await fetch(`${control}/stats`)).json()) as ProviderStats,
    reset: async () => {
      await fetch(`${control}/reset`)
    },
    stop: async () => {
      proc.kill("SIGTERM")
      await proc.exited
    },
  }
}

/**
 * The AI-SDK baseline server (ai-sdk-server.ts) in its own process, talking to `providerUrl`.
 * Its `log` stays empty: it writes no log lines.
 */
export async function startBaselineProcess(providerUrl: string): Promise<ServerProcess> {
  const proc = Bun.spawn(["bun", `${HERE}/ai-sdk-server.ts`, providerUrl], {
    stdout: "pipe",
    stderr: "inherit",
    cwd: REPO,
  })
  const [, url] = await firstLine(proc.stdout as ReadableStream<Uint8Array>, /^READY (\S+)/, 15_000)
  return {
    url: url as string,
    pid: proc.pid,
    proc,
    log: [],
    stop: async (signal = "SIGTERM") => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
      return proc.exited
    },
  }
}

export type ServerProcess = {
  url: string
  pid: number
  proc: Subprocess
  /** Every stderr line so far (JSON log lines). */
  log: string[]
  stop(signal?: NodeJS.Signals): Promise<number>
}

/**
 * Starts `argv` (a `serve` command line with `--port 0`) and waits for its "listening" log line,
 * which carries the bound URL (up to `listenTimeoutMs`: a start beside a heavy load takes longer).
 */
export async function startServerProcess(
  argv: string[],
  env: Record<string, string> = {},
  listenTimeoutMs = 20_000,
): Promise<ServerProcess> {
  const proc = Bun.spawn(argv, {
    stdout: "ignore",
    stderr: "pipe",
    cwd: REPO,
    // TMPDIR passed on: a server killed with SIGKILL cannot remove its temp dirs, so they must be
    // made where the test run's (or bench run's) own temp root removes them.
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      TMPDIR: tmpdir(),
      // No balancer watches a test's server: SIGTERM needs no lame duck (the drain and replica
      // tests set their own).
      SVC_DRAIN_DELAY: "0",
      ...env,
    },
  })
  const log: string[] = []
  const listening = Promise.withResolvers<string>()
  void (async () => {
    let buffered = ""
    const decoder = new TextDecoder()
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true })
      let nl = buffered.indexOf("\n")
      while (nl >= 0) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        if (log.length < 10_000) log.push(line)
        const url = /"msg":"listening".*"url":"([^"]+)"/.exec(line)?.[1]
        if (url) listening.resolve(url)
        nl = buffered.indexOf("\n")
      }
    }
    listening.reject(new Error(`server exited before listening:\n${log.join("\n")}`))
  })()
  const timer = setTimeout(
    () => listening.reject(new Error(`server did not listen within ${listenTimeoutMs / 1000} s`)),
    listenTimeoutMs,
  )
  const url = await listening.promise.finally(() => clearTimeout(timer))
  return {
    url,
    pid: proc.pid,
    proc,
    log,
    stop: async (signal = "SIGTERM") => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
      return proc.exited
    },
  }
}

/** Waits until `url` answers 200, polling every `everyMs`. */
export async function waitForOk(url: string, timeoutMs = 20_000, everyMs = 20): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await Bun.sleep(everyMs)
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`)
}

async function firstLine(stream: ReadableStream<Uint8Array>, pattern: RegExp, timeoutMs: number) {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ""
  const timer = setTimeout(() => reader.cancel().catch(() => {}), timeoutMs)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) throw new Error(`process ended before printing ${pattern}: ${text}`)
      text += decoder.decode(value, { stream: true })
      const match = pattern.exec(text)
      if (match) return match
    }
  } finally {
    clearTimeout(timer)
    reader.releaseLock()
  }
}
