/**
 * What containment adds to one tool process (issue 19.1), measured side by side in one run:
 * `true` through `runProcess` uncontained, under the old per-call bubblewrap wrapper (a new
 * sandbox and prlimit exec per process), and through the long-lived sandbox helper of the
 * read-only view (each run in its own pid and mount namespace, issue 18). Rounds interleave the
 * modes so load drift hits them alike; read the ratios and the added milliseconds, not the
 * absolute times. CPU per process (dupin, the helper and the
 * tools, from /proc) is the figure least moved by other load on the host. `bun test/bench/containment-cost.ts`.
 */
import { readFileSync } from "node:fs"
import { configureContainment, currentContainment } from "../../src/tool/containment/index.ts"
import { runProcess } from "../../src/tool/spawn.ts"
import { emit } from "./support/report.ts"
import { fmt, median, percentile } from "./support/stats.ts"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
const PER_ROUND = 20
const PARALLEL = 8

const info = configureContainment({ mode: "auto" })
if (info.mechanism !== "bwrap") {
  emit({
    name: "containment-cost",
    method: "",
    table: { head: [], rows: [] },
    targets: [],
    skipped: "bubblewrap does not work on this host",
  })
  process.exit(0)
}
const state = currentContainment()
const original = { info: state.info, programs: state.programs, pool: state.pool }
type Mode = "none" | "per-call bwrap" | "sandbox helper"
const MODES: Mode[] = ["none", "per-call bwrap", "sandbox helper"]

function use(mode: Mode): void {
  state.pool = mode === "sandbox helper" ? original.pool : null
  state.info = mode === "none" ? { ...original.info, level: "none", mechanism: null } : original.info
  state.programs = mode === "none" ? { ...original.programs, prlimit: null, bwrap: null } : original.programs
}

const env = { PATH: "/usr/bin:/bin", HOME: "/nonexistent" }
async function one(): Promise<number> {
  const started = performance.now()
  const result = await runProcess({ argv: ["true"], env, timeoutMs: 30_000, maxOutputBytes: 1024 })
  if (result.exitCode !== 0) throw new Error(`true failed: ${result.output}`)
  return performance.now() - started
}

/** CPU seconds of this process and its reaped children, and of the helper's process tree. */
function cpuTicks(pid: number | "self"): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // utime, stime, cutime, cstime (fields 14-17).
    return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
  } catch {
    return 0
  }
}
/**
 * The sandbox's whole tree: bwrap, the bwrap inside its pid namespace, the helper (bwrap's
 * grandchild) and the namespaces' inits; the tool processes the helper reaped count in its cutime.
 * (Summing bwrap and its children only missed the live helper, and CPU came out below none.)
 */
function helperTicks(): number {
  const bwrap = state.pool?.sandboxes[0]?.pid
  if (!bwrap) return 0
  let total = 0
  const queue = [bwrap]
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    total += cpuTicks(pid)
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim()
      if (children) queue.push(...children.split(/\s+/).map(Number))
    } catch {
      // Gone while we looked.
    }
  }
  return total
}
const CPU_RUNS = 200
const cpu: Record<Mode, number> = { none: 0, "per-call bwrap": 0, "sandbox helper": 0 }

const serial: Record<Mode, number[]> = { none: [], "per-call bwrap": [], "sandbox helper": [] }
const parallel: Record<Mode, number[]> = { none: [], "per-call bwrap": [], "sandbox helper": [] }
for (const mode of MODES) {
  use(mode)
  for (let i = 0; i < 5; i++) await one()
}
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of MODES) {
    use(mode)
    for (let i = 0; i < PER_ROUND; i++) serial[mode].push(await one())
    const started = performance.now()
    await Promise.all(Array.from({ length: PARALLEL }, () => one()))
    parallel[mode].push((performance.now() - started) / PARALLEL)
  }
}
// CPU per process (all processes involved, clock ticks of 10 ms): less sensitive to load than wall time.
for (const mode of MODES) {
  use(mode)
  const before = cpuTicks("self") + (mode === "sandbox helper" ? helperTicks() : 0)
  for (let i = 0; i < CPU_RUNS; i++) await one()
  const after = cpuTicks("self") + (mode === "sandbox helper" ? helperTicks() : 0)
  cpu[mode] = ((after - before) * 10) / CPU_RUNS
}
use("sandbox helper")

const base = median(serial.none)
const baseParallel = median(parallel.none)
const rows = MODES.map((mode) => [
  mode,
  `${fmt(median(serial[mode]))} ms`,
  `${fmt(median(serial[mode]) - base)} ms`,
  `${fmt(median(serial[mode]) / base)}×`,
  `${fmt(percentile(serial[mode], 90))} ms`,
  `${fmt(median(parallel[mode]))} ms`,
  `${fmt(median(parallel[mode]) / baseParallel)}×`,
  `${fmt(cpu[mode])} ms`,
  `${fmt(cpu[mode] - cpu.none)} ms`,
])
const added = median(serial["sandbox helper"]) - base
const cpuAdded = cpu["sandbox helper"] - cpu.none
emit({
  name: "containment-cost",
  method: `runProcess(["true"]) one at a time (${ROUNDS}×${PER_ROUND} per mode) and ${PARALLEL} at once (wall time ÷ ${PARALLEL}), modes interleaved per round in one process: uncontained, the old per-call bwrap + prlimit wrapper, and the long-lived sandbox helper of the read-only view (a pid and mount namespace per run).`,
  table: {
    head: [
      "mode",
      "p50 per process",
      "added over none",
      "÷ none",
      "p90 per process",
      `${PARALLEL} at once, per process`,
      "÷ none",
      `CPU per process (${CPU_RUNS} runs)`,
      "CPU added",
    ],
    rows,
  },
  targets: [
    {
      claim: "containment adds ≤ 1 ms per tool process over no containment",
      measured: `${fmt(added)} ms`,
      target: "≤ 1 ms",
      met: added <= 1,
    },
    {
      claim: "containment adds ≤ 1 ms of CPU per tool process (dupin, helper and tool together)",
      measured: `${fmt(cpuAdded)} ms`,
      target: "≤ 1 ms",
      met: cpuAdded <= 1,
    },
  ],
})
process.exit(0)
