/**
 * Two costs a user pays once per process (issue 19 item 5), on dist/dupin (built when missing) in
 * its default config, with server-load's conversation (2 tool steps x 2 one-line YAML tools, then
 * the answer: 3 provider calls at 50 ms, 4 tool runs):
 * - the first conversation after `serve` is ready, minus a warm one on the same process;
 * - the conversation through `dupin ask`, spawn to exit, against a floor script (support/
 *   ask-floor.ts) that makes the same provider calls (the bodies dupin sent) and tool runs.
 */
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { REPO, startProviderProcess, startServerProcess, waitForOk } from "./support/processes.ts"
import { type BenchReport, emit } from "./support/report.ts"
import { writeServeConfig } from "./support/server-config.ts"
import { fmt, median, ratio } from "./support/stats.ts"
import { TINY_CALLS } from "./support/tiny-tools.ts"

const BINARY = `${REPO}/dist/dupin`
const RUNS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5))
const LATENCY_MS = 50
const STEPS = 2
const ASK = "Is the checkout service healthy?"

async function conversation(url: string): Promise<number | undefined> {
  const started = performance.now()
  const res = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ask: ASK, stream: true }),
  })
  const text = await res.text()
  if (res.status !== 200 || !text.includes("event: ai_answer_end")) return undefined
  return performance.now() - started
}

async function timedProcess(argv: string[], env: Record<string, string>): Promise<number | undefined> {
  const started = performance.now()
  const proc = Bun.spawn(argv, { env, stdout: "ignore", stderr: "ignore", stdin: "ignore" })
  const code = await proc.exited
  return code === 0 ? performance.now() - started : undefined
}

async function main(): Promise<BenchReport> {
  if (!existsSync(BINARY)) {
    const build = Bun.spawnSync(["bun", "run", "build"], { cwd: REPO, stdout: "inherit", stderr: "inherit" })
    if (build.exitCode !== 0 || !existsSync(BINARY)) {
      const table = { head: [], rows: [] }
      return {
        name: "First conversation",
        method: "",
        table,
        targets: [],
        skipped: "dist/dupin could not be built",
      }
    }
  }
  const provider = await startProviderProcess({ latencyMs: LATENCY_MS, steps: STEPS, calls: TINY_CALLS })
  const files = writeServeConfig(provider.url)
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: files.dir }
  try {
    const added: number[] = []
    const firsts: number[] = []
    const warms: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const server = await startServerProcess(
        [BINARY, "serve", "--config", files.configPath, "--port", "0"],
        env,
      )
      try {
        await waitForOk(`${server.url}/readyz`, 20_000, 2)
        const first = await conversation(server.url)
        const warm: number[] = []
        for (let w = 0; w < 3; w++) {
          const ms = await conversation(server.url)
          if (ms !== undefined) warm.push(ms)
        }
        if (first === undefined || warm.length === 0) continue
        firsts.push(first)
        warms.push(median(warm))
        added.push(first - median(warm))
      } finally {
        await server.stop()
      }
    }

    // The bodies `dupin ask` sends, recorded once, are what the floor replays.
    const askArgv = [BINARY, "ask", ASK, "--config", files.configPath, "--no-interactive"]
    await provider.reset()
    await timedProcess(askArgv, env)
    const stats = await provider.stats()
    const bodies = Array.from({ length: STEPS + 1 }, (_, i) => stats.firstBodies[String(i + 1)])
    const bodiesPath = join(files.dir, "ask-bodies.json")
    writeFileSync(bodiesPath, JSON.stringify(bodies))
    const floorArgv = ["bun", `${REPO}/test/bench/support/ask-floor.ts`, provider.url, bodiesPath]
    const asks: number[] = []
    const floors: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const a = await timedProcess(askArgv, env)
      const f = await timedProcess(floorArgv, env)
      if (a !== undefined) asks.push(a)
      if (f !== undefined) floors.push(f)
    }
    const firstAdded = median(added)
    const askRatio = ratio(median(asks), median(floors))
    return {
      name: "First conversation and `dupin ask` (dist/dupin)",
      method:
        `Median of ${RUNS}. First conversation: a fresh \`dupin serve\`, ready (/readyz 200), then one SSE conversation ` +
        `(${STEPS} tool steps x 2 YAML tools + the answer, provider latency ${LATENCY_MS} ms) minus the median of the 3 ` +
        `that follow on the same process. Ask: spawn of \`dupin ask … --no-interactive\` to exit, same conversation; ` +
        `floor: spawn of a bun script replaying the provider bodies ask sent and running the same 4 commands, to exit.`,
      table: {
        head: [
          "first conversation ms",
          "warm conversation ms",
          "first added ms",
          "ask ms",
          "floor script ms",
          "ask ÷ floor",
        ],
        rows: [
          [
            fmt(median(firsts), 1),
            fmt(median(warms), 1),
            fmt(firstAdded, 1),
            fmt(median(asks), 1),
            fmt(median(floors), 1),
            fmt(askRatio),
          ],
        ],
      },
      targets: [
        {
          claim: "first conversation after start, added over a warm one",
          measured: added.length ? `${fmt(firstAdded, 1)} ms` : "no conversation completed",
          target: "≤ 100 ms",
          met: added.length > 0 && firstAdded <= 100,
        },
        {
          claim: "the conversation through `dupin ask` (process start to answer) vs a floor script",
          measured: `${fmt(median(asks), 1)} ms vs ${fmt(median(floors), 1)} ms (${fmt(askRatio)}x; ${asks.length}/${RUNS} asks ok)`,
          target: "≤ 1.3x floor",
          met: asks.length === RUNS && askRatio <= 1.3,
        },
      ],
    }
  } finally {
    await provider.stop()
  }
}

if (import.meta.main) emit(await main())
