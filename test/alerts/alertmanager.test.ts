/**
 * The whole path with the real things: Debian's Prometheus evaluates a rule that fires at once,
 * Debian's Alertmanager sends it (with a bearer token) to a real `dupin serve`, the scripted
 * model queries that Prometheus through the real prometheus toolset, the analysis is stored and
 * delivered to a local webhook receiver and a local stand-in for Slack's incoming webhook.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { waitFor } from "../support/wait.ts"
import { freePort } from "../toolset/prometheus/server.ts"
import { getJson, isFirstStep, type ServedAlerts, serveAlerts } from "./serve-support.ts"

const TOKEN = "am-token-123"
const procs: Array<{ kill(signal?: number | NodeJS.Signals): void; exited: Promise<number> }> = []
const dirs: string[] = []
let served: ServedAlerts | undefined
const receivers: Array<ReturnType<typeof Bun.serve>> = []

afterAll(async () => {
  for (const p of procs) p.kill("SIGTERM")
  await Promise.all(procs.map((p) => Promise.race([p.exited, Bun.sleep(5000)])))
  await served?.stop()
  for (const r of receivers) await r.stop(true)
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function binary(name: string): string {
  const path = Bun.which(name)
  if (!path) throw new Error(`${name} is not on PATH: apt-get install -y ${name} (.ci/run does this)`)
  return path
}

async function waitReady(url: string, what: string): Promise<void> {
  await waitFor(
    async () => {
      try {
        return (await fetch(url)).ok
      } catch {
        return false
      }
    },
    { timeoutMs: 30_000, intervalMs: 200, what },
  )
}

const hooked: Array<Record<string, unknown>> = []
const slacked: Array<Record<string, unknown>> = []

beforeAll(async () => {
  const prometheus = binary("prometheus")
  const alertmanager = binary("prometheus-alertmanager")
  for (const [list, kind] of [
    [hooked, "hook"],
    [slacked, "slack"],
  ] as const) {
    receivers.push(
      Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        async fetch(req) {
          list.push({ path: new URL(req.url).pathname, body: await req.json(), kind })
          return new Response("ok")
        },
      }),
    )
  }
  const [hook, slack] = receivers
  const promPort = await freePort()
  const amPort = await freePort()
  const dir = mkdtempSync(join(tmpdir(), "dupin-am-"))
  dirs.push(dir)
  writeFileSync(
    join(dir, "rules.yml"),
    `groups:
  - name: dupin
    interval: 1s
    rules:
      - alert: AlwaysOn
        expr: vector(1)
        for: 0s
        labels: { severity: warning, team: sre }
        annotations: { summary: "Always on", description: "vector(1) is always 1" }
`,
  )
  writeFileSync(
    join(dir, "prometheus.yml"),
    `global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [${JSON.stringify(join(dir, "rules.yml"))}]
alerting:
  alertmanagers: [{ static_configs: [{ targets: ["127.0.0.1:${amPort}"] }] }]
`,
  )
  // Prometheus first: dupin checks the prometheus toolset's prerequisite (the server answers) at start.
  procs.push(
    Bun.spawn(
      [
        prometheus,
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "prom-data")}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        // The first send can come before the Alertmanager is discovered (it is then dropped);
        // the default resend delay of 1 min would hold the alert back that long.
        "--rules.alert.resend-delay=1s",
        "--log.level=warn",
      ],
      { stdout: "ignore", stderr: "ignore" },
    ),
  )
  await waitReady(`http://127.0.0.1:${promPort}/-/ready`, "prometheus ready")
  served = await serveAlerts(
    (request) =>
      isFirstStep(request)
        ? {
            toolCalls: [
              {
                name: "execute_prometheus_instant_query",
                arguments: { query: "vector(1)", description: "is the rule's expression still true" },
              },
            ],
          }
        : { content: "The AlwaysOn rule fires because vector(1) is always 1: expected in this test." },
    `server: { auth_token: "${TOKEN}", public_url: "https://dupin.test" }
alerts:
  enabled: true
  sinks:
    - { type: webhook, url: "http://127.0.0.1:${hook?.port}/hook" }
    - { type: slack, webhook_url: "http://127.0.0.1:${slack?.port}/services/T1/B1/x" }
toolsets:
  prometheus/metrics: { enabled: true, config: { prometheus_url: "http://127.0.0.1:${promPort}" } }`,
  )
  writeFileSync(
    join(dir, "alertmanager.yml"),
    `route:
  receiver: dupin
  group_by: [alertname]
  group_wait: 1s
  group_interval: 5s
  repeat_interval: 1h
receivers:
  - name: dupin
    webhook_configs:
      - url: ${served.server.url}/api/alerts/alertmanager
        send_resolved: true
        http_config:
          authorization: { type: Bearer, credentials: ${TOKEN} }
`,
  )
  procs.push(
    Bun.spawn(
      [
        alertmanager,
        `--config.file=${join(dir, "alertmanager.yml")}`,
        `--storage.path=${join(dir, "am-data")}`,
        `--web.listen-address=127.0.0.1:${amPort}`,
        "--cluster.listen-address=",
        "--log.level=warn",
      ],
      { stdout: "ignore", stderr: "ignore" },
    ),
  )
  await waitReady(`http://127.0.0.1:${amPort}/-/ready`, "alertmanager ready")
}, 60_000)

test("Prometheus → Alertmanager → dupin serve: investigated with a real tool, stored, delivered", async () => {
  const url = served!.server.url
  const auth = { authorization: `Bearer ${TOKEN}` }
  const done = await waitFor(
    async () => {
      const { investigations } = await getJson<{ investigations: Array<{ id: string; status: string }> }>(
        `${url}/api/investigations?status=done`,
        auth,
      )
      return investigations[0]
    },
    { timeoutMs: 60_000, intervalMs: 250, what: "an investigation of the AlwaysOn alert done" },
  ).catch((error: unknown) => {
    throw new Error(
      `${String(error)}\ndupin's log:\n${served!.server.log
        .filter((l) => !l.includes(`"path":"/api/investigations"`))
        .slice(-30)
        .join("\n")}`,
    )
  })
  const record = await getJson<{
    alert: { labels: Record<string, string>; annotations: Record<string, string>; generatorURL: string }
    analysis: string
    tool_calls: Array<{ tool_name: string; result: { status: string; data?: unknown } }>
  }>(`${url}/api/investigations/${done.id}`, auth)
  expect(record.alert.labels.alertname).toBe("AlwaysOn")
  expect(record.alert.labels.team).toBe("sre")
  expect(record.alert.annotations.summary).toBe("Always on")
  expect(record.alert.generatorURL).toContain(`/graph?g0.expr=vector`)
  expect(record.analysis).toContain("vector(1) is always 1")
  expect(record.tool_calls[0]?.tool_name).toBe("execute_prometheus_instant_query")
  expect(record.tool_calls[0]?.result.status, JSON.stringify(record.tool_calls[0])).toBe("success")
  expect(String(record.tool_calls[0]?.result.data)).toContain("resultType: vector; 1 series")

  await waitFor(() => hooked.length > 0 && slacked.length > 0, {
    timeoutMs: 20_000,
    what: "both sinks called",
  })
  const hook = hooked[0]!.body as Record<string, unknown>
  expect(hook.id).toBe(done.id)
  expect(hook.url).toBe(`https://dupin.test/api/investigations/${done.id}`)
  const slack = slacked[0]!.body as {
    text: string
    blocks: Array<{ type: string; text?: { type: string; text: string } }>
  }
  expect(slack.blocks[0]?.type).toBe("header")
  expect(slack.blocks[0]?.text?.type).toBe("plain_text")
  expect(slack.blocks[0]?.text?.text).toContain("AlwaysOn")
  expect(JSON.stringify(slack.blocks)).toContain("warning")
  expect(JSON.stringify(slack.blocks)).toContain("vector(1) is always 1")
  expect(JSON.stringify(slack.blocks)).toContain("Always on")
  expect(JSON.stringify(slack.blocks)).toContain(`<https://dupin.test/api/investigations/${done.id}|`)
  const withId = (d: { sink: string; ok: boolean; attempts: number }) => ({
    sink: d.sink,
    ok: d.ok,
    attempts: d.attempts,
  })
  const delivered = await waitFor(
    async () => {
      const r = await getJson<{ deliveries: Array<{ sink: string; ok: boolean; attempts: number }> }>(
        `${url}/api/investigations/${done.id}`,
        auth,
      )
      return r.deliveries.length === 2 && r.deliveries.every((d) => d.ok) ? r.deliveries : undefined
    },
    { timeoutMs: 10_000, what: "both deliveries recorded" },
  )
  expect(delivered.map(withId)).toEqual([
    { sink: "webhook", ok: true, attempts: 1 },
    { sink: "slack", ok: true, attempts: 1 },
  ])
  // Alertmanager repeats the group every group_interval: dedupe keeps it to one investigation.
  await Bun.sleep(6_000)
  const all = await getJson<{ investigations: unknown[] }>(`${url}/api/investigations`, auth)
  expect(all.investigations).toHaveLength(1)
}, 90_000)
