/**
 * Running a built `dupin` binary the way an operator would: copied alone into an empty directory,
 * with an empty HOME and an environment that holds nothing but PATH and what the caller adds (no
 * proxy, no provider keys). Shared by the smoke test and the startup measurement.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join, resolve } from "node:path"

export type Isolated = {
  /** The copied binary. */
  binary: string
  /** The empty directory it sits in, used as cwd. */
  dir: string
  env: Record<string, string>
  /** Removes the directory, HOME and TMPDIR made for the binary. */
  remove(): void
}

export function isolate(binaryPath: string, extraEnv: Record<string, string> = {}): Isolated {
  // One root for the binary's directory, its HOME and its TMPDIR, removed by `remove()`: what the
  // binary leaves in its temp dir (a server's socket dir after SIGKILL) goes with it.
  const root = mkdtempSync(join(tmpdir(), "dupin-smoke-"))
  const [dir, home, tmp] = ["bin", "home", "tmp"].map((name) => join(root, name)) as [string, string, string]
  for (const path of [dir, home, tmp]) mkdirSync(path, { mode: 0o700 })
  const binary = join(dir, basename(binaryPath))
  copyFileSync(resolve(binaryPath), binary)
  chmodSync(binary, 0o755)
  return {
    binary,
    dir,
    env: { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", HOME: home, TMPDIR: tmp, ...extraEnv },
    remove: () => rmSync(root, { recursive: true, force: true }),
  }
}

export type Run = { code: number; stdout: string; stderr: string }

export async function run(iso: Isolated, args: readonly string[], timeoutMs = 60_000): Promise<Run> {
  const proc = Bun.spawn([iso.binary, ...args], {
    cwd: iso.dir,
    env: iso.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs)
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ])
    return { code, stdout, stderr }
  } finally {
    clearTimeout(timer)
  }
}

export type Served = {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">
  url: string
  /** Milliseconds from spawn to the "listening" log line (the port is bound). */
  listeningMs: number
  /** Milliseconds from spawn to the first 200 from /readyz. */
  readyMs: number
  stderr: () => string
}

/**
 * Starts `serve` on a free port and waits for `/readyz`. The bound address is read from the
 * server's "listening" log line, so nothing races for a port chosen in advance.
 */
export async function serve(
  iso: Isolated,
  args: readonly string[] = [],
  timeoutMs = 30_000,
): Promise<Served> {
  const started = performance.now()
  const proc = Bun.spawn([iso.binary, "serve", "--port", "0", ...args], {
    cwd: iso.dir,
    // A short lame duck: the smoke run's SIGTERM goes through it without waiting the default 5 s.
    env: { ...iso.env, SVC_LOG_LEVEL: "INFO", SVC_DRAIN_DELAY: "0.5" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  let log = ""
  const decoder = new TextDecoder()
  void (async () => {
    for await (const chunk of proc.stderr) log += decoder.decode(chunk, { stream: true })
  })()
  const deadline = started + timeoutMs
  let url: string | undefined
  let listeningMs = 0
  while (performance.now() < deadline) {
    if (!url) {
      url = log.match(/"url":"(http:\/\/[^"]+)"/)?.[1]
      if (url) listeningMs = performance.now() - started
    }
    if (url) {
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      )
      if (ready) return { proc, url, listeningMs, readyMs: performance.now() - started, stderr: () => log }
    }
    if (proc.exitCode !== null) break
    await Bun.sleep(5)
  }
  proc.kill("SIGKILL")
  throw new Error(`serve did not become ready (exit ${proc.exitCode}); its stderr:\n${log}`)
}

/** Resident memory of a process in MiB (Linux /proc; undefined elsewhere). */
export async function rssMiB(pid: number): Promise<number | undefined> {
  const status = await Bun.file(`/proc/${pid}/status`)
    .text()
    .catch(() => "")
  const kb = status.match(/^VmRSS:\s+(\d+) kB/m)?.[1]
  return kb ? Number(kb) / 1024 : undefined
}
