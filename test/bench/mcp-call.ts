/**
 * The cost of one MCP tool call against a YAML tool doing the same work (echo a message): both
 * through the executor exactly as the loop runs them (prepare: JSON, schema, approval check; run:
 * timeout, redaction). The MCP call goes over the kept stdio connection to the fault server and
 * over Streamable HTTP to server-everything; the YAML tool spawns `echo` under the tool
 * containment of this host. `bun test/bench/mcp-call.ts` (or `bun run bench mcp-call`).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config } from "../../src/config/config.ts"
import { setLogLevel } from "../../src/log.ts"
import { applyContainment } from "../../src/runtime/containment.ts"
import { createRuntime } from "../../src/runtime/runtime.ts"
import type { ToolExecutor } from "../../src/tool/executor.ts"
import { stopMcpServers } from "../../src/toolset/mcp/index.ts"
import { EVERYTHING, FAULT_SERVER, startEverythingHttp } from "../mcp/support.ts"
import { emit } from "./support/report.ts"
import { fmt, median, percentile } from "./support/stats.ts"

const CALLS = Number(process.env.BENCH_ROUNDS ?? 200)
setLogLevel("ERROR")

const dir = mkdtempSync(join(tmpdir(), "dupin-bench-mcp-"))
const yaml = join(dir, "echo.yaml")
writeFileSync(
  yaml,
  `toolsets:\n  bench/yaml:\n    description: bench\n    tools:\n      - name: yaml_echo\n        description: Echo a message\n        command: "echo {{ message }}"\n`,
)
const http = await startEverythingHttp("streamableHttp")
const config = new Config({
  env: { PATH: process.env.PATH ?? "", HOME: dir },
  customToolsets: [yaml],
  mcpServers: {
    fault: { config: { command: process.execPath, args: [FAULT_SERVER, dir] } },
    remote: { config: { url: http.url } },
  },
})
const containment = applyContainment(config.security)
const executor = createRuntime(config).executor
await executor.ensureReady()

async function measure(exec: ToolExecutor, name: string, args: Record<string, unknown>): Promise<number[]> {
  const call = { id: "b", type: "function" as const, function: { name, arguments: JSON.stringify(args) } }
  const signal = new AbortController().signal
  for (let i = 0; i < 20; i++) await exec.run(exec.prepare(call), signal)
  const samples: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now()
    const result = await exec.run(exec.prepare(call), signal)
    samples.push(performance.now() - started)
    if (result.status !== "success") throw new Error(`${name}: ${result.error}`)
  }
  return samples
}

const cases: Array<[string, string, Record<string, unknown>]> = [
  ["YAML tool (echo, spawned)", "yaml_echo", { message: "hi" }],
  ["MCP stdio (fault server echo)", "echo", { message: "hi" }],
  ["MCP Streamable HTTP (server-everything echo)", "remote__echo", { message: "hi" }],
]
const rows: string[][] = []
const medians: number[] = []
try {
  for (const [label, tool, args] of cases) {
    const samples = await measure(executor, tool, args)
    medians.push(median(samples))
    rows.push([label, fmt(median(samples)), fmt(percentile(samples, 95)), String(CALLS)])
  }
} finally {
  await stopMcpServers()
  await http.stop()
}

const yamlMedian = medians[0] ?? 0
emit({
  name: "mcp-call",
  method: `${CALLS} sequential calls per tool after 20 warm-up calls, each through ToolExecutor.prepare and run as the agent loop does; the MCP connection is opened once and kept. Tool containment: ${containment.level}${containment.mechanism ? ` (${containment.mechanism})` : ""}. Server start-up (${EVERYTHING.split("/").at(-3)}) is not counted.`,
  table: { head: ["tool", "median ms", "p95 ms", "calls"], rows },
  targets: [
    {
      claim: "an MCP call over a kept stdio connection costs no more than a YAML tool's process spawn",
      measured: `${fmt(medians[1] ?? 0)} ms vs ${fmt(yamlMedian)} ms`,
      target: "<= YAML tool median",
      met: (medians[1] ?? Number.POSITIVE_INFINITY) <= yamlMedian,
    },
  ],
})
