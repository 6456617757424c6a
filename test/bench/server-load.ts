/**
 * The server under concurrent SSE chats on loopback (issue 19 item 5), against a FLOOR that does
 * the same work with no server and an AI-SDK BASELINE server (support/ai-sdk-server.ts) doing the
 * same conversation the way a user would write it.
 *
 * Each conversation: 2 tool steps of 2 tool calls (`true`, `echo`: one-line YAML tools, real
 * subprocesses), then the answer: 3 provider calls and 4 tool runs. The fake provider runs in its
 * own process with 50 ms latency per call. dupin is `bun src/main.ts serve` in its default
 * config, a fresh process per client count, so its VmHWM (peak RSS) and utime+stime (CPU: the
 * server and its tool sandboxes' helpers, the tool processes themselves excluded) are that level's. The floor, in this process, replays the exact request
 * bodies dupin sent (recorded by the provider) through the openai client and spawns the same tool
 * commands with Bun.spawn; its CPU is this process's during its waves. At 50 clients a second
 * dupin with the header guard forced on (`server.header_timeout: 10`) gives the guard's CPU share.
 * Waves rotate the order of the systems.
 *   added latency = conversation wall time − 3 × 50 ms
 */
import OpenAI from "openai"
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions"
import { headerTimeoutFor } from "../../src/server/server.ts"
import { mib, sampleProc, treeCpuSeconds } from "./support/proc.ts"
import {
  type ServerProcess,
  startBaselineProcess,
  startProviderProcess,
  startServerProcess,
  waitForOk,
} from "./support/processes.ts"
import { type BenchReport, emit } from "./support/report.ts"
import { serveArgv, writeServeConfig } from "./support/server-config.ts"
import { fmt, median, percentile, ratio } from "./support/stats.ts"
import { runTinyTool, TINY_CALLS } from "./support/tiny-tools.ts"

const LATENCY_MS = 50
const STEPS = 2
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
        calls.map((call) =>
          call.type === "function" ? runTinyTool(call.function.name, call.function.arguments) : undefined,
        ),
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

type Summary = {
  done: number
  failed: number
  p50: number
  p99: number
  throughput: number
  cpuPerConv: number
}

function summarize(waves: Wave[]): Summary {
  const provider0 = PROVIDER_CALLS * LATENCY_MS
  const walls = waves.flatMap((x) => x.walls)
  const failed = waves.reduce((a, x) => a + x.failed, 0)
  return {
    done: walls.length,
    failed,
    p50: percentile(walls, 50) - provider0,
    p99: percentile(walls, 99) - provider0,
    throughput: median(waves.map((x) => (x.walls.length + x.failed) / x.seconds)),
    cpuPerConv: (waves.reduce((a, x) => a + x.cpuSeconds, 0) / Math.max(1, walls.length + failed)) * 1000,
  }
}

/** Whether the default config puts the header guard in front of a loopback listener. */
const defaultGuardOnLoopback = headerTimeoutFor("127.0.0.1", undefined) > 0
/** The level at which the header guard's CPU share is measured (issue 19 item 4). */
const GUARD_LEVEL = 50

async function main(): Promise<BenchReport> {
  const provider = await startProviderProcess({ latencyMs: LATENCY_MS, steps: STEPS, calls: TINY_CALLS })
  const files = writeServeConfig(provider.url)
  const guardFiles = writeServeConfig(provider.url, "server:\n  header_timeout: 10\n")
  const client = new OpenAI({ apiKey: "bench", baseURL: provider.url, maxRetries: 0, timeout: 120_000 })
  const rows: string[][] = []
  const targets: BenchReport["targets"] = []
  const notes: string[] = []
  try {
    for (const clients of LEVELS) {
      const started: ServerProcess[] = []
      try {
        const dupin = await startServerProcess(serveArgv(files.configPath))
        started.push(dupin)
        const guard =
          clients === GUARD_LEVEL ? await startServerProcess(serveArgv(guardFiles.configPath)) : undefined
        if (guard) started.push(guard)
        const baseline = await startBaselineProcess(provider.url)
        started.push(baseline)
        for (const s of started) await waitForOk(`${s.url}/readyz`)
        await provider.reset()
        // Warm-up: loads the tokenizer, checks prerequisites, and records the bodies the floor replays.
        if ((await serverConversation(dupin.url)) === undefined)
          throw new Error("warm-up conversation failed")
        const stats = await provider.stats()
        const bodies = Array.from({ length: PROVIDER_CALLS }, (_, i) => {
          const body = stats.firstBodies[String(i + 1)]
          if (!body) throw new Error(`no recorded body for step ${i + 1}`)
          return body as unknown as ChatCompletionCreateParamsNonStreaming
        })
        const replay: Replay = { client, bodies }
        await floorConversation(replay)
        if (guard && (await serverConversation(guard.url)) === undefined)
          throw new Error("warm-up conversation (guard) failed")
        if ((await serverConversation(baseline.url)) === undefined)
          throw new Error("warm-up conversation (AI-SDK baseline) failed")

        const systems = [
          {
            name: "dupin",
            run: () => serverConversation(dupin.url),
            cpu: () => treeCpuSeconds(dupin.pid),
          },
          { name: "floor", run: () => floorConversation(replay), cpu: selfCpu },
          {
            name: "baseline",
            run: () => serverConversation(baseline.url),
            cpu: () => sampleProc(baseline.pid).cpuSeconds,
          },
          ...(guard
            ? [
                {
                  name: "guard",
                  run: () => serverConversation(guard.url),
                  cpu: () => treeCpuSeconds(guard.pid),
                },
              ]
            : []),
        ]
        const waves = new Map<string, Wave[]>(systems.map((x) => [x.name, []]))
        for (let w = 0; w < WAVES; w++) {
          // Rotated each wave, so no system always runs right after the same other one.
          const order = systems.map((_, i) => systems[(i + w) % systems.length] as (typeof systems)[number])
          for (const x of order) waves.get(x.name)?.push(await wave(clients, x.run, x.cpu))
        }
        const peakMiB = mib(sampleProc(dupin.pid).hwmKb)
        const baselinePeakMiB = mib(sampleProc(baseline.pid).hwmKb)
        const sv = summarize(waves.get("dupin") ?? [])
        const fl = summarize(waves.get("floor") ?? [])
        const bl = summarize(waves.get("baseline") ?? [])
        const latency = ratio(sv.p50, fl.p50)
        const cpu = ratio(sv.cpuPerConv, fl.cpuPerConv)
        rows.push([
          String(clients),
          `${sv.done}/${sv.failed}`,
          fmt(sv.p50, 1),
          fmt(sv.p99, 1),
          fmt(fl.p50, 1),
          fmt(bl.p50, 1),
          fmt(latency),
          fmt(ratio(bl.p50, fl.p50)),
          fmt(sv.cpuPerConv, 2),
          fmt(fl.cpuPerConv, 2),
          fmt(bl.cpuPerConv, 2),
          fmt(cpu),
          fmt(sv.throughput, 1),
          fmt(peakMiB, 0),
          fmt(baselinePeakMiB, 0),
        ])
        targets.push(
          {
            claim: `${clients} client(s): failures`,
            measured: `${sv.failed} of ${sv.done + sv.failed} (floor ${fl.failed}, baseline ${bl.failed})`,
            target: "0",
            met: sv.failed === 0,
          },
          {
            claim: `${clients} client(s): added latency p50, dupin vs floor`,
            measured: `${fmt(sv.p50, 1)} ms vs ${fmt(fl.p50, 1)} ms (${fmt(latency)}x)`,
            target: "≤ 1.3x floor",
            met: latency <= 1.3,
          },
          {
            claim: `${clients} client(s): dupin faster than the AI-SDK baseline (added latency p50)`,
            measured: `${fmt(sv.p50, 1)} ms vs ${fmt(bl.p50, 1)} ms (${fmt(ratio(sv.p50, bl.p50))}x)`,
            target: "< 1x baseline",
            met: sv.p50 < bl.p50,
          },
          {
            claim: `${clients} client(s): server CPU per conversation, dupin vs floor`,
            measured: `${fmt(sv.cpuPerConv, 2)} ms vs ${fmt(fl.cpuPerConv, 2)} ms (${fmt(cpu)}x; baseline ${fmt(bl.cpuPerConv, 2)} ms)`,
            target: "≤ 1.5x floor",
            met: cpu <= 1.5,
          },
        )
        if (guard) {
          const gd = summarize(waves.get("guard") ?? [])
          const share = (gd.cpuPerConv - sv.cpuPerConv) / gd.cpuPerConv
          notes.push(
            `${clients} clients, header guard forced on (\`server.header_timeout: 10\`): ${fmt(gd.cpuPerConv, 2)} ms CPU/conversation vs ${fmt(sv.cpuPerConv, 2)} ms in the default config, added latency p50 ${fmt(gd.p50, 1)} ms vs ${fmt(sv.p50, 1)} ms.`,
          )
          targets.push({
            claim: `${clients} clients: the header front's share of server CPU when on`,
            measured: `${fmt(share * 100, 1)} % (guard ${fmt(gd.cpuPerConv, 2)} ms vs default ${fmt(sv.cpuPerConv, 2)} ms per conversation); default on loopback: ${defaultGuardOnLoopback ? "on" : "off"}`,
            target: "≤ 5 % (or off where it does not hold)",
            met: share <= 0.05 || !defaultGuardOnLoopback,
          })
        }
        if (clients === Math.max(...LEVELS)) {
          targets.push({
            claim: `dupin peak RSS at ${clients} concurrent streams`,
            measured: `${fmt(peakMiB, 0)} MiB (baseline ${fmt(baselinePeakMiB, 0)} MiB)`,
            target: "≤ 200 MB",
            met: peakMiB * 1.048576 <= 200,
          })
        }
        const errors = dupin.log.filter((l) => /"level":"ERROR"/.test(l))
        if (errors.length > 0)
          notes.push(`${clients} clients: ${errors.length} ERROR log lines, first: ${errors[0]}`)
      } finally {
        for (const s of started) await s.stop()
      }
    }
  } finally {
    await provider.stop()
  }
  return {
    name: "Server under load (SSE chats on loopback)",
    method:
      `Per conversation: ${STEPS} steps x 2 tool calls (true, echo via a YAML toolset) + the answer = ${PROVIDER_CALLS} ` +
      `provider calls at ${LATENCY_MS} ms each (fake provider in its own process) and ${STEPS * 2} tool runs. dupin: ` +
      `\`bun src/main.ts serve\`, default config, fresh process per level; CPU = utime+stime of the server process and its ` +
      `tool sandboxes (bwrap, the helper; the tool processes excluded, as the floor's); peak RSS = VmHWM. Floor: this process replays dupin's exact provider request bodies via the ` +
      `openai client and spawns the same commands (bash -c, detached, piped) with no server; CPU = this process's. ` +
      `Baseline: an AI-SDK (\`ai\` streamText + Hono) server doing the same conversation (test/bench/support/ai-sdk-server.ts). ` +
      `Added latency = wall − ${PROVIDER_CALLS * LATENCY_MS} ms. ${WAVES} rotated waves per level (a wave at 1 client = ` +
      `${SEQUENTIAL} sequential conversations).`,
    table: {
      head: [
        "clients",
        "dupin done/failed",
        "dupin added p50 ms",
        "dupin added p99 ms",
        "floor added p50 ms",
        "baseline added p50 ms",
        "dupin p50 ÷ floor",
        "baseline p50 ÷ floor",
        "dupin CPU ms/conv",
        "floor CPU ms/conv",
        "baseline CPU ms/conv",
        "dupin CPU ÷ floor",
        "dupin conv/s",
        "dupin peak RSS MiB",
        "baseline peak RSS MiB",
      ],
      rows,
    },
    targets,
    notes,
  }
}

if (import.meta.main) emit(await main())
