/**
 * Big tool outputs through the whole tool path: a YAML toolset tool (a real subprocess writing N
 * bytes of log lines), the executor's byte cap, the result, truncation to the token budget, and
 * the next provider request. Each size runs in a fresh process (`--child <bytes>`), so the
 * kernel's peak-RSS mark (VmHWM, reset through /proc/self/clear_refs after a warm-up) is that
 * size's alone.
 *   time to truncated result = next provider request received − start_tool_calling
 * Floor: the same command's bytes read from a pipe and thrown away.
 * (test/bench/context-truncation.ts measures the truncation function alone.)
 */
import { writeFileSync } from "node:fs"
import { ToolCallingLLM } from "../../src/agent/tool-calling-llm.ts"
import { createChatModel } from "../../src/llm/factory.ts"
import { configureContainment, currentContainment } from "../../src/tool/containment/index.ts"
import { ToolExecutor } from "../../src/tool/executor.ts"
import { DEFAULT_TOOL_LIMITS } from "../../src/tool/tool.ts"
import { buildToolEnv } from "../../src/tool/tool-env.ts"
import { buildToolsets, parseToolsetFile } from "../../src/toolset/loader.ts"
import { startFakeProvider } from "../support/fake-provider.ts"
import { mib, sampleProc, treeRssKb } from "./support/proc.ts"
import { type BenchReport, emit } from "./support/report.ts"
import { fmt, median, ratio } from "./support/stats.ts"

const SIZES_MB = [10, 100, 500]
/** The sandbox helper's process: bun from source, the binary itself when compiled. */
const HELPER_PROGRAMS = ["bun", "bun.exe", "dupin"]
const REPS = Number(process.env.BENCH_ROUNDS ?? 3)
const LINE = `2025-06-01T12:00:00.000Z ERROR [payments-7d9f8b6c5d-x2k4q] upstream connect error or disconnect/reset before headers (503 ms)`
const COMMAND = `yes '${LINE}' | head -c {{ bytes }}`

const TOOLSET = `toolsets:
  bench/big:
    description: Writes a lot of log lines
    tools:
      - name: big_logs
        description: Print the given number of bytes of logs
        command: "${COMMAND}"
        parameters:
          bytes: { type: integer }
`

type ChildResult = {
  bytes: number
  toTruncatedMs: number
  floorMs: number
  baselineRssMiB: number
  peakGrowthMiB: number
  sentChars: number
  endsTruncated: boolean
  containment: string
  /** The sandbox helper's peak RSS growth (sampled every 10 ms), when tools ran in it. */
  helperGrowthMiB: number | null
}

async function child(bytes: number): Promise<ChildResult> {
  // The default config's containment (serve and ask configure it at start).
  const containment = configureContainment({ mode: "auto" }).mechanism ?? "none"
  const fake = await startFakeProvider()
  const model = createChatModel({ id: "openai/gpt-4o", apiKey: "bench", apiBase: fake.url, env: {} })
  const executor = new ToolExecutor(buildToolsets(parseToolsetFile(TOOLSET, "bench.yaml")), {
    limits: DEFAULT_TOOL_LIMITS,
    env: buildToolEnv(process.env),
  })
  const llm = new ToolCallingLLM({ model, toolExecutor: executor })

  let started = 0
  let reached = 0
  let sent = ""
  /** The sandbox helper's resident memory, sampled while a run goes (it is a process of its own). */
  let helperPeakKb = 0
  const sampleHelper = () => {
    const pid = currentContainment().pool?.sandboxes[0]?.pid
    if (pid) helperPeakKb = Math.max(helperPeakKb, treeRssKb(pid, HELPER_PROGRAMS))
  }
  const once = async (n: number) => {
    const sampler = setInterval(sampleHelper, 10)
    fake.script({ toolCalls: [{ name: "big_logs", arguments: { bytes: n } }] }, (request) => {
      reached = performance.now()
      const messages = request.body?.messages as Array<{ role: string; content: string }>
      sent = messages.findLast((m) => m.role === "tool")?.content ?? ""
      return { content: "done" }
    })
    fake.requests.length = 0
    for await (const event of llm.callStream([
      { role: "system", content: "bench" },
      { role: "user", content: "show logs" },
    ])) {
      if (event.event === "start_tool_calling") started = performance.now()
    }
    clearInterval(sampler)
    return reached - started
  }

  await once(1_000_000) // loads the tokenizer, compiles the schema, warms the JIT
  Bun.gc(true)
  const baseline = sampleProc(process.pid).rssKb
  const helperPid = currentContainment().pool?.sandboxes[0]?.pid
  const helperBaseline = helperPid ? treeRssKb(helperPid, HELPER_PROGRAMS) : 0
  helperPeakKb = helperBaseline
  // "5" resets the peak-RSS mark (Linux ≥ 4.0), so VmHWM from here on is this size's alone.
  writeFileSync("/proc/self/clear_refs", "5")
  const times: number[] = []
  for (let i = 0; i < REPS; i++) {
    times.push(await once(bytes))
    Bun.gc(true)
  }
  const peak = sampleProc(process.pid).hwmKb

  const floors: number[] = []
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now()
    const proc = Bun.spawn(["sh", "-c", COMMAND.replace("{{ bytes }}", String(bytes))], { stdout: "pipe" })
    for await (const _ of proc.stdout as ReadableStream<Uint8Array>) {
      // discard
    }
    await proc.exited
    floors.push(performance.now() - t0)
  }
  await fake.stop()
  return {
    bytes,
    toTruncatedMs: median(times),
    floorMs: median(floors),
    baselineRssMiB: mib(baseline),
    peakGrowthMiB: mib(peak - baseline),
    containment,
    helperGrowthMiB: helperPid ? mib(helperPeakKb - helperBaseline) : null,
    sentChars: sent.length,
    endsTruncated: sent.endsWith("[TRUNCATED]"),
  }
}

async function main(): Promise<BenchReport> {
  const results: ChildResult[] = []
  for (const mb of SIZES_MB) {
    const proc = Bun.spawn(["bun", import.meta.path, "--child", String(mb * 1_000_000)], {
      stdout: "pipe",
      stderr: "inherit",
    })
    const out = await new Response(proc.stdout).text()
    if ((await proc.exited) !== 0) throw new Error(`big-output child for ${mb} MB failed`)
    results.push(JSON.parse(out.trim().split("\n").pop() ?? "{}") as ChildResult)
  }
  const at500 = results.find((r) => r.bytes === 500_000_000)
  return {
    name: "Big tool outputs (whole tool path)",
    method:
      `A YAML tool running \`yes '<log line>' | head -c N\` through ToolCallingLLM (instant fake provider), ` +
      `default limits (tool_output_max_bytes 10 MB, 128k window → 19,200-token result budget). Time from ` +
      `start_tool_calling to the next provider request (which carries the truncated result); peak RSS growth = ` +
      `VmHWM − RSS after warm-up, fresh process per size; median of ${REPS}. Containment as configured by default (serve and ask configure it at start); the sandbox helper is a process of its own, its RSS sampled every 10 ms. Floor: the same command read from a pipe and discarded.`,
    table: {
      head: [
        "output",
        "time to truncated result ms",
        "floor (pipe only) ms",
        "ratio to floor",
        "baseline RSS MiB",
        "peak RSS growth MiB",
        "containment",
        "sandbox helper peak growth MiB",
        "result chars sent",
        "ends with [TRUNCATED]",
      ],
      rows: results.map((r) => [
        `${r.bytes / 1_000_000} MB`,
        fmt(r.toTruncatedMs, 0),
        fmt(r.floorMs, 0),
        fmt(ratio(r.toTruncatedMs, r.floorMs)),
        fmt(r.baselineRssMiB, 0),
        fmt(r.peakGrowthMiB, 1),
        r.containment,
        r.helperGrowthMiB === null ? "-" : fmt(r.helperGrowthMiB, 1),
        String(r.sentChars),
        r.endsTruncated ? "yes" : "NO",
      ]),
    },
    targets: [
      {
        claim: "peak RSS growth at 500 MB of tool output",
        measured: at500
          ? `${fmt(at500.peakGrowthMiB, 1)} MiB (${at500.containment}${at500.helperGrowthMiB === null ? "" : `; the sandbox helper, a process of its own: ${fmt(at500.helperGrowthMiB, 1)} MiB`})`
          : "not measured",
        target: "≤ 16 MB (issue 19)",
        met: at500 !== undefined && at500.peakGrowthMiB * 1.048576 <= 16,
      },
      {
        claim: "every result reaches the model cut, ending with [TRUNCATED]",
        measured: results.every((r) => r.endsTruncated) ? "yes, all sizes" : "no",
        target: "yes",
        met: results.every((r) => r.endsTruncated),
      },
    ],
  }
}

if (import.meta.main) {
  const at = process.argv.indexOf("--child")
  if (at >= 0) console.log(JSON.stringify(await child(Number(process.argv[at + 1]))))
  else emit(await main())
}
