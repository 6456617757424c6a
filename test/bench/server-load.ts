/**
 * The server under concurrent SSE chats on loopback, against a FLOOR that does the same work with
 * no server.
 *
 * Each conversation: 3 tool steps of 2 tool calls (`true`, `echo`: real subprocesses from a YAML
 * toolset), then the answer: 4 provider calls. The fake provider runs in its own process with
 * 50 ms latency per call. The server is `bun src/main.ts serve`, a fresh process per client
 * count, so its VmHWM (peak RSS) and utime+stime (CPU, tool children excluded) are that level's.
 * The floor, in this process, replays the exact request bodies the server sent (recorded by the
 * provider) through the openai client and spawns the same tool commands with Bun.spawn; its CPU is
 * this process's during its waves. Waves alternate server/floor.
 *   added latency = conversation wall time − 4 × 50 ms
 */
import OpenAI from "openai"
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions"
import { mib, sampleProc } from "./support/proc.ts"
import { startProviderProcess, startServerProcess, waitForOk } from "./support/processes.ts"
import { type BenchReport, emit } from "./support/report.ts"
import { serveArgv, writeServeConfig } from "./support/server-config.ts"
import { fmt, median, percentile, ratio } from "./support/stats.ts"

const LATENCY_MS = 50
const STEPS = 3
const PROVIDER_CALLS = STEPS + 1
const LEVELS = (process.env.BENCH_LEVELS ?? "1,50,200").split(",").map(Number)
const WAVES = Number(process.env.BENCH_ROUNDS ?? 3)
/** At one client, a wave is this many conversations one after another. */
const SEQUENTIAL = 10

type Wave = { walls: number[]; failed: number; seconds: number; cpuSeconds: number }

async function serverConversation(url: string): Promise<number | undefined> {
  const started = performance.now()
  try {
    const res = await fetch(`${url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ask: "Is the checkout service healthy?", stream: true }),
    })
    const text = await res.text()
    if (res.status !== 200 || !text.includes("event: ai_answer_end")) return undefined
    return performance.now() - started
  } catch {
    return undefined
  }
}

type Replay = { client: OpenAI; bodies: ChatCompletionCreateParamsNonStreaming[] }

/** The floor: the same provider calls (recorded bodies) and the same tool processes, no server. */
async function floorConversation(replay: Replay): Promise<number | undefined> {
  const started = performance.now()
  try {
    for (const body of replay.bodies) {
      const completion = await replay.client.chat.completions.create(body)
      const calls = completion.choices[0]?.message.tool_calls ?? []
      await Promise.all(
        calls.map(async (call) => {
          if (call.type !== "function") return
          const args = JSON.parse(call.function.arguments) as Record<string, string>
          const script = call.function.name === "t_true" ? `true ${args.n}` : `echo ${args.text}`
          const proc = Bun.spawn(["bash", "-c", script], {
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
            stdout: "pipe",
            stderr: "pipe",
            detached: true,
          })
          await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
        }),
      )
    }
    return performance.now() - started
  } catch {
    return undefined
  }
}

async function wave(
  clients: number,
  one: () => Promise<number | undefined>,
  cpu: () => number,
): Promise<Wave> {
  const cpu0 = cpu()
  const t0 = performance.now()
  const results: Array<number | undefined> = []
  if (clients === 1) {
    for (let i = 0; i < SEQUENTIAL; i++) results.push(await one())
  } else {
    results.push(...(await Promise.all(Array.from({ length: clients }, one))))
  }
  const seconds = (performance.now() - t0) / 1000
  const walls = results.filter((w): w is number => w !== undefined)
  return { walls, failed: results.length - walls.length, seconds, cpuSeconds: cpu() - cpu0 }
}

const selfCpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

async function main(): Promise<BenchReport> {
  const provider = await startProviderProcess({
    latencyMs: LATENCY_MS,
    steps: STEPS,
    calls: [
      { name: "t_true", arguments: { n: "{{step}}" } },
      { name: "t_echo", arguments: { text: "step {{step}}" } },
    ],
  })
  const files = writeServeConfig(provider.url)
  const client = new OpenAI({ apiKey: "bench", baseURL: provider.url, maxRetries: 0, timeout: 120_000 })
  const rows: string[][] = []
  const targets: BenchReport["targets"] = []
  const notes: string[] = []
  try {
    for (const clients of LEVELS) {
      const server = await startServerProcess(serveArgv(files.configPath))
      try {
        await waitForOk(`${server.url}/readyz`)
        await provider.reset()
        // Warm-up: loads the tokenizer, checks prerequisites, and records the bodies the floor replays.
        if ((await serverConversation(server.url)) === undefined)
          throw new Error("warm-up conversation failed")
        const stats = await provider.stats()
        const bodies = Array.from({ length: PROVIDER_CALLS }, (_, i) => {
          const body = stats.firstBodies[String(i + 1)]
          if (!body) throw new Error(`no recorded body for step ${i + 1}`)
          return body as unknown as ChatCompletionCreateParamsNonStreaming
        })
        const replay: Replay = { client, bodies }
        await floorConversation(replay)
        const serverCpu = () => sampleProc(server.pid).cpuSeconds

        const s: Wave[] = []
        const f: Wave[] = []
        for (let w = 0; w < WAVES; w++) {
          const order = w % 2 === 0 ? ["server", "floor"] : ["floor", "server"]
          for (const which of order) {
            if (which === "server")
              s.push(await wave(clients, () => serverConversation(server.url), serverCpu))
            else f.push(await wave(clients, () => floorConversation(replay), selfCpu))
          }
        }
        const peakMiB = mib(sampleProc(server.pid).hwmKb)
        const provider0 = PROVIDER_CALLS * LATENCY_MS
        const sum = (waves: Wave[]) => {
          const walls = waves.flatMap((x) => x.walls)
          const conversations = walls.length + waves.reduce((a, x) => a + x.failed, 0)
          return {
            done: walls.length,
            failed: waves.reduce((a, x) => a + x.failed, 0),
            p50: percentile(walls, 50) - provider0,
            p99: percentile(walls, 99) - provider0,
            throughput: median(waves.map((x) => (x.walls.length + x.failed) / x.seconds)),
            cpuPerConv: (waves.reduce((a, x) => a + x.cpuSeconds, 0) / Math.max(1, conversations)) * 1000,
          }
        }
        const sv = sum(s)
        const fl = sum(f)
        rows.push([
          String(clients),
          `${sv.done}/${sv.failed}`,
          fmt(sv.p50, 1),
          fmt(sv.p99, 1),
          fmt(fl.p50, 1),
          fmt(fl.p99, 1),
          fmt(ratio(sv.p50, fl.p50)),
          fmt(sv.throughput, 1),
          fmt(fl.throughput, 1),
          fmt(sv.cpuPerConv, 2),
          fmt(fl.cpuPerConv, 2),
          fmt(ratio(sv.cpuPerConv, fl.cpuPerConv)),
          fmt(peakMiB, 0),
        ])
        targets.push(
          {
            claim: `${clients} client(s): failures`,
            measured: `${sv.failed} of ${sv.done + sv.failed} (floor ${fl.failed})`,
            target: "0",
            met: sv.failed === 0,
          },
          {
            claim: `${clients} client(s): added latency p50, server vs floor`,
            measured: `${fmt(sv.p50, 1)} ms vs ${fmt(fl.p50, 1)} ms (${fmt(ratio(sv.p50, fl.p50))}x)`,
            target: "≤ 1.5x floor",
            met: ratio(sv.p50, fl.p50) <= 1.5,
          },
          {
            claim: `${clients} client(s): CPU per conversation, server vs floor`,
            measured: `${fmt(sv.cpuPerConv, 2)} ms vs ${fmt(fl.cpuPerConv, 2)} ms (${fmt(ratio(sv.cpuPerConv, fl.cpuPerConv))}x)`,
            target: "≤ 2x floor",
            met: ratio(sv.cpuPerConv, fl.cpuPerConv) <= 2,
          },
        )
        if (clients === Math.max(...LEVELS)) {
          targets.push({
            claim: `server peak RSS at ${clients} clients`,
            measured: `${fmt(peakMiB, 0)} MiB`,
            target: "≤ 300 MB",
            met: peakMiB * 1.048576 <= 300,
          })
        }
        const errors = server.log.filter((l) => /"level":"ERROR"/.test(l))
        if (errors.length > 0)
          notes.push(`${clients} clients: ${errors.length} ERROR log lines, first: ${errors[0]}`)
      } finally {
        await server.stop()
      }
    }
  } finally {
    await provider.stop()
  }
  return {
    name: "Server under load (SSE chats on loopback)",
    method:
      `Per conversation: ${STEPS} steps x 2 tool calls (true, echo via a YAML toolset) + the answer = ${PROVIDER_CALLS} ` +
      `provider calls at ${LATENCY_MS} ms each (fake provider in its own process). Server: \`bun src/main.ts serve\`, ` +
      `fresh process per level; CPU = utime+stime of the server process (tool children excluded); peak RSS = VmHWM. ` +
      `Floor: this process replays the server's exact provider request bodies via the openai client and spawns the same ` +
      `commands (bash -c, detached, piped) with no server; CPU = this process's. Added latency = wall − ${PROVIDER_CALLS * LATENCY_MS} ms. ` +
      `${WAVES} alternating waves per level (a wave at 1 client = ${SEQUENTIAL} sequential conversations).`,
    table: {
      head: [
        "clients",
        "server done/failed",
        "server added p50 ms",
        "server added p99 ms",
        "floor added p50 ms",
        "floor added p99 ms",
        "p50 ratio",
        "server conv/s",
        "floor conv/s",
        "server CPU ms/conv",
        "floor CPU ms/conv",
        "CPU ratio",
        "server peak RSS MiB",
      ],
      rows,
    },
    targets,
    notes,
  }
}

if (import.meta.main) emit(await main())
