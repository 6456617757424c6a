/**
 * Startup numbers of a built binary, median of N runs (default 5):
 *   bun test/smoke/measure-startup.ts dist/dupin [runs]
 * - serve: spawn → port bound ("listening" log line), spawn → first 200 from /readyz (toolset
 *   prerequisites checked), and resident memory after 2 s idle;
 * - ask: spawn → the first request reaching the provider (what the user waits for before the
 *   model even starts), and total time for a one-step answer;
 * - version: total time.
 * Same isolation as the smoke test: the binary alone in an empty directory, empty HOME.
 */
import { startFakeProvider } from "../support/fake-provider.ts"
import { isolate, rssMiB, run, serve } from "./binary.ts"

const binaryPath = process.argv[2]
const runs = Number(process.argv[3] ?? 5)
if (!binaryPath || !Number.isInteger(runs) || runs < 1) {
  console.error("usage: bun test/smoke/measure-startup.ts <path to dupin binary> [runs]")
  process.exit(2)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

function report(name: string, values: number[], unit: string): void {
  const shown = values.map((v) => v.toFixed(unit === "MiB" ? 1 : 0)).join(", ")
  console.log(
    `${name.padEnd(28)} median ${median(values).toFixed(unit === "MiB" ? 1 : 0)} ${unit}  (runs: ${shown})`,
  )
}

const fake = await startFakeProvider()
const iso = isolate(binaryPath, { OPENAI_API_KEY: "test", OPENAI_BASE_URL: fake.url, MODEL: "openai/gpt-4o" })
const listening: number[] = []
const ready: number[] = []
const rss: number[] = []
const firstRequest: number[] = []
const askTotal: number[] = []
const version: number[] = []

try {
  for (let i = 0; i < runs; i++) {
    const server = await serve(iso)
    listening.push(server.listeningMs)
    ready.push(server.readyMs)
    await Bun.sleep(2000)
    const mib = await rssMiB(server.proc.pid)
    if (mib !== undefined) rss.push(mib)
    server.proc.kill("SIGTERM")
    await server.proc.exited

    let sentAt = 0
    fake.script(() => {
      sentAt = performance.now()
      return { content: "ok" }
    })
    const started = performance.now()
    const answer = await run(iso, ["ask", "ping", "--no-interactive"])
    if (answer.code !== 0) throw new Error(`ask failed: ${answer.stderr}`)
    firstRequest.push(sentAt - started)
    askTotal.push(performance.now() - started)

    const v0 = performance.now()
    await run(iso, ["version"])
    version.push(performance.now() - v0)
  }
  console.log(`${binaryPath}, ${runs} runs, ${process.platform}-${process.arch}`)
  report("serve: spawn → listening", listening, "ms")
  report("serve: spawn → /readyz 200", ready, "ms")
  if (rss.length) report("serve: idle RSS after 2 s", rss, "MiB")
  report("ask: spawn → first LLM request", firstRequest, "ms")
  report("ask: one-step answer, total", askTotal, "ms")
  report("version: total", version, "ms")
} finally {
  await fake.stop()
  iso.remove()
}
