/** An in-process server with alert investigations on, against the fake provider. */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AlertService, type AlertServiceOptions } from "../../src/alerts/service.ts"
import { Config, type ConfigInit } from "../../src/config/config.ts"
import { createApp } from "../../src/server/app.ts"
import { ServerMetrics } from "../../src/server/telemetry.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"

export function toolsetYaml(dir: string): string {
  return `toolsets:
  test/alerts:
    description: Tools for alert tests
    tools:
      - name: check_disk
        description: Shows disk usage of a host
        command: "echo checked {{ host }} >> ${dir}/checked.txt; echo '/dev/sda1 98% used on {{ host }}'"
        parameters:
          host: { type: string }
      - name: restart
        description: Restart a service
        command: "echo {{ service }} >> ${dir}/restarted.txt; echo restarted"
        parameters:
          service: { type: string }
        requires_approval: true
      - name: nap
        description: Sleeps a while
        command: "sleep {{ seconds }}; echo rested"
        parameters:
          seconds: { type: string }
`
}

export type AlertHarness = {
  fake: FakeProvider
  config: Config
  service: AlertService
  metrics: ServerMetrics
  url: string
  dir: string
  postAlerts(body: unknown, headers?: Record<string, string>): Promise<Response>
  get(path: string, headers?: Record<string, string>): Promise<Response>
  stop(): Promise<void>
}

export async function startAlertHarness(
  init: Omit<ConfigInit, "env"> = {},
  options: AlertServiceOptions = {},
  env: Record<string, string> = {},
): Promise<AlertHarness> {
  const fake = await startFakeProvider()
  const dir = mkdtempSync(join(tmpdir(), "dupin-alerts-test-"))
  const toolsetFile = join(dir, "toolsets.yaml")
  writeFileSync(toolsetFile, toolsetYaml(dir))
  const config = new Config({
    model: "openai/gpt-4o",
    apiBase: fake.url,
    apiKey: "test",
    customToolsets: [toolsetFile],
    // The tests prove a tool ran (or did not) by the marker file it writes outside its temp dir:
    // uncontained, as a library Config is contained by default (its read-only view would make
    // "the refused restart wrote nothing" true whatever the refusal did).
    security: { containment: "off" },
    ...init,
    alerts: { enabled: true, ...init.alerts },
    store: init.store ?? { path: join(dir, "dupin.db") },
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
  })
  const metrics = new ServerMetrics()
  const service = new AlertService(config, metrics.registry, { pollMs: 50, ...options })
  service.start()
  await service.ready()
  const app = createApp(config, { metrics, alerts: service })
  app.listen({ hostname: "127.0.0.1", port: 0 })
  const url = `http://127.0.0.1:${app.server?.port}`
  return {
    fake,
    config,
    service,
    metrics,
    url,
    dir,
    postAlerts: (body, headers = {}) =>
      fetch(`${url}/api/alerts/alertmanager`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    get: (path, headers = {}) => fetch(`${url}${path}`, { headers }),
    stop: async () => {
      await service.shutdown(1000)
      await app.stop(true)
      await fake.stop()
    },
  }
}

/** An Alertmanager webhook body (version 4) with these alerts. */
export function alertmanagerBody(
  alerts: Array<{
    fingerprint?: string
    status?: string
    labels?: Record<string, string>
    annotations?: Record<string, string>
  }>,
): Record<string, unknown> {
  return {
    version: "4",
    groupKey: '{}:{alertname="DiskFull"}',
    truncatedAlerts: 0,
    status: "firing",
    receiver: "dupin",
    groupLabels: { alertname: "DiskFull" },
    commonLabels: {},
    commonAnnotations: {},
    externalURL: "http://alertmanager:9093",
    alerts: alerts.map((a, i) => ({
      status: a.status ?? "firing",
      labels: a.labels ?? { alertname: "DiskFull", severity: "critical", instance: `host-${i}` },
      annotations: a.annotations ?? { summary: "Disk almost full", description: "/ is 98% full" },
      startsAt: "2026-11-26T10:00:00Z",
      endsAt: "0001-01-01T00:00:00Z",
      generatorURL: "http://prometheus:9090/graph?g0.expr=disk",
      fingerprint: a.fingerprint ?? `fp${i}`,
    })),
  }
}

export async function waitForStatus(
  h: AlertHarness,
  id: string,
  statuses: string[],
  // Generous: a run's first model call waits for the tokenizer and toolset checks, slow on a busy box.
  timeoutMs = 45_000,
): Promise<Record<string, unknown>> {
  return await waitFor(
    async () => {
      const body = (await (await h.get(`/api/investigations/${id}`)).json()) as Record<string, unknown>
      return statuses.includes(String(body.status)) ? body : undefined
    },
    { timeoutMs, intervalMs: 50, what: `investigation ${id} to be ${statuses.join(" or ")}` },
  )
}
