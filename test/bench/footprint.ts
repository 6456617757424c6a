/**
 * The compiled binary's footprint: size, cold start of `serve` to a 200 from `/readyz`, idle RSS,
 * and first `ask` to the fake provider receiving its first request. Needs dist/dupin: built by
 * `bun run build` when missing (or with BENCH_BUILD=1).
 * Floor for cold start: `bun -e` of a bare Bun.serve answering 200, spawned and polled the same way.
 */
import { existsSync, statSync } from "node:fs"
import { startFakeProvider } from "../support/fake-provider.ts"
import { mib, sampleProc } from "./support/proc.ts"
import { REPO, waitForOk } from "./support/processes.ts"
import { type BenchReport, emit } from "./support/report.ts"
import { writeServeConfig } from "./support/server-config.ts"
import { fmt, median, ratio } from "./support/stats.ts"

const BINARY = `${REPO}/dist/dupin`
const RUNS = Math.max(5, Number(process.env.BENCH_ROUNDS ?? 7))

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() })
  const port = probe.port ?? 0
  probe.stop(true)
  return port
}

/** Spawn → first 200 from `url`; polls every 2 ms. Returns ms and the still-running process. */
async function coldStart(argv: string[], paths: string[], env: Record<string, string>) {
  const port = await freePort()
  const started = performance.now()
  const proc = Bun.spawn([...argv, ...(argv[0] === BINARY ? ["--port", String(port)] : [])], {
    env: { ...env, PORT: String(port), SVC_DRAIN_DELAY: "0" },
    stdout: "ignore",
    stderr: "ignore",
  })
  const ms: number[] = []
  for (const path of paths) {
    await waitForOk(`http://127.0.0.1:${port}${path}`, 20_000, 2)
    ms.push(performance.now() - started)
  }
  return { ms, proc }
}

async function main(): Promise<BenchReport> {
  if (!existsSync(BINARY) || process.env.BENCH_BUILD === "1") {
    const build = Bun.spawnSync(["bun", "run", "build"], { cwd: REPO, stdout: "inherit", stderr: "inherit" })
    if (build.exitCode !== 0 || !existsSync(BINARY)) {
      return {
        name: "Binary footprint",
        method: "",
        table: { head: [], rows: [] },
        targets: [],
        skipped: "dist/dupin could not be built (`bun run build` failed)",
      }
    }
  }
  const fake = await startFakeProvider()
  const files = writeServeConfig(fake.url)
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: files.dir }
  try {
    const serve = [BINARY, "serve", "--config", files.configPath]
    const floorArgv = [
      "bun",
      "-e",
      "Bun.serve({hostname:'127.0.0.1',port:Number(process.env.PORT),fetch:()=>new Response('ok')})",
    ]
    const starts: number[] = []
    const floors: number[] = []
    const listening: number[] = []
    const idle: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const f = await coldStart(floorArgv, ["/"], env)
      floors.push(f.ms[0]!)
      f.proc.kill()
      await f.proc.exited
      const s = await coldStart(serve, ["/healthz", "/readyz"], env)
      listening.push(s.ms[0]!)
      starts.push(s.ms[1]!)
      await Bun.sleep(1000)
      idle.push(mib(sampleProc(s.proc.pid).rssKb))
      s.proc.kill("SIGTERM")
      await s.proc.exited
    }

    // First ask: spawn → the provider has the first request in hand.
    const asks: number[] = []
    for (let i = 0; i < RUNS; i++) {
      let reached = 0
      fake.script(() => {
        reached = performance.now()
        return { content: "All good." }
      })
      const started = performance.now()
      const proc = Bun.spawn(
        [BINARY, "ask", "Is the cluster healthy?", "--config", files.configPath, "--no-interactive"],
        {
          env,
          stdout: "ignore",
          stderr: "ignore",
          stdin: "ignore",
        },
      )
      await proc.exited
      if (reached > 0) asks.push(reached - started)
    }

    const size = statSync(BINARY).size / 1024 / 1024
    const cold = median(starts)
    const floor = median(floors)
    const rss = median(idle)
    const ask = median(asks)
    return {
      name: "Binary footprint (dist/dupin)",
      method:
        `Median of ${RUNS}. Cold start: spawn of \`dupin serve\` until /readyz answers 200 (polled every 2 ms); ` +
        `floor: \`bun -e\` with a bare Bun.serve, same polling. Idle RSS: VmRSS 1 s after ready. First ask: spawn of ` +
        `\`dupin ask\` until the fake provider (in this process) receives the request.`,
      table: {
        head: [
          "binary MiB",
          "spawn → /healthz ms",
          "spawn → /readyz ms",
          "floor (bare Bun.serve) ms",
          "readyz ratio to floor",
          "idle RSS MiB",
          "first ask → provider ms",
        ],
        rows: [
          [
            fmt(size, 1),
            fmt(median(listening), 1),
            fmt(cold, 1),
            fmt(floor, 1),
            fmt(ratio(cold, floor)),
            fmt(rss, 1),
            fmt(ask, 1),
          ],
        ],
      },
      targets: [
        {
          claim: "cold start of serve to /readyz",
          measured: `${fmt(cold, 1)} ms`,
          target: "≤ 60 ms (issue 19)",
          met: cold <= 60,
        },
        {
          claim: "idle RSS of serve",
          measured: `${fmt(rss, 1)} MiB`,
          target: "≤ 60 MB (issue 19)",
          met: rss * 1.048576 <= 60,
        },
        {
          claim: "first ask reaches the provider",
          measured:
            asks.length === RUNS ? `${fmt(ask, 1)} ms` : `only ${asks.length} of ${RUNS} asks reached it`,
          target: "no stated target (reported)",
          met: asks.length === RUNS,
        },
      ],
    }
  } finally {
    await fake.stop()
  }
}

if (import.meta.main) emit(await main())
