import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A real Prometheus on loopback, scraping itself every second, with one always-firing alert. */
export type PrometheusServer = { url: string; stop: () => Promise<void> }

export const PROMETHEUS_MISSING =
  "The prometheus binary is not on PATH. Install it (Debian: apt-get install -y prometheus; .ci/run does this) or set DUPIN_SKIP_PROMETHEUS=1 to skip these tests."

export function prometheusBinary(): string | null {
  return Bun.which("prometheus")
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

const RULES = `groups:
  - name: dupin-test
    interval: 1s
    rules:
      - alert: AlwaysFiring
        expr: vector(1)
        labels: { severity: test }
        annotations: { summary: "fires for the tests" }
      - record: job:up:sum
        expr: sum by (job) (up)
`

export async function startPrometheus(binary: string): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), "dupin-prometheus-"))
  const port = await freePort()
  const address = `127.0.0.1:${port}`
  writeFileSync(join(dir, "rules.yml"), RULES)
  writeFileSync(
    join(dir, "prometheus.yml"),
    `global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [${JSON.stringify(join(dir, "rules.yml"))}]
scrape_configs:
  - job_name: prometheus
    static_configs: [{ targets: ["${address}"] }]
`,
  )
  const proc = Bun.spawn(
    [
      binary,
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=${address}`,
      "--log.level=warn",
    ],
    { stdout: "ignore", stderr: "pipe" },
  )
  const url = `http://${address}`
  const stop = async () => {
    proc.kill("SIGTERM")
    await Promise.race([proc.exited, Bun.sleep(5000)])
    if (proc.exitCode === null) proc.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
  const deadline = Date.now() + 25_000
  // Ready, then one scrape of itself and one rule evaluation, so every tool has data to return.
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) {
      const stderr = await new Response(proc.stderr).text()
      rmSync(dir, { recursive: true, force: true })
      throw new Error(`prometheus exited with ${proc.exitCode}: ${stderr.slice(-2000)}`)
    }
    if (await hasData(url)) return { url, stop }
    await Bun.sleep(200)
  }
  await stop()
  throw new Error(`prometheus on ${address} did not become ready with data within 25 s`)
}

async function hasData(url: string): Promise<boolean> {
  try {
    const ready = await fetch(`${url}/-/ready`)
    if (!ready.ok) return false
    const up = (await (await fetch(`${url}/api/v1/query?query=up`)).json()) as { data: { result: unknown[] } }
    const alerts = (await (await fetch(`${url}/api/v1/alerts`)).json()) as { data: { alerts: unknown[] } }
    return up.data.result.length > 0 && alerts.data.alerts.length > 0
  } catch {
    return false
  }
}
