import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type AlertHarness, alertmanagerBody, startAlertHarness, waitForStatus } from "./support.ts"

let h: AlertHarness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
}, 60_000)

test("a firing alert becomes an investigation that calls a real tool and stores the analysis", async () => {
  h = await startAlertHarness()
  h.fake.script(
    { toolCalls: [{ name: "check_disk", arguments: { host: "host-0" } }] },
    { content: "The disk on host-0 is 98% full: clean /var/log." },
  )
  const res = await h.postAlerts(alertmanagerBody([{}]))
  expect(res.status).toBe(202)
  const body = (await res.json()) as {
    investigations: Array<{ id: string; fingerprint: string; status: string }>
  }
  expect(body.investigations).toHaveLength(1)
  expect(body.investigations[0]?.fingerprint).toBe("fp0")
  expect(body.investigations[0]?.status).toBe("queued")
  const done = await waitForStatus(h, body.investigations[0]!.id, ["done", "failed"])
  expect(done.status).toBe("done")
  expect(done.analysis).toBe("The disk on host-0 is 98% full: clean /var/log.")
  expect(readFileSync(join(h.dir, "checked.txt"), "utf8")).toContain("checked host-0")
  for (const key of [
    "id",
    "status",
    "fingerprint",
    "alert",
    "created_at",
    "started_at",
    "finished_at",
    "analysis",
    "tool_calls",
    "conversation_history",
    "metadata",
    "error",
    "deliveries",
  ]) {
    expect(done).toHaveProperty(key)
  }
  expect((done.tool_calls as Array<{ tool_name: string }>)[0]?.tool_name).toBe("check_disk")
  // The prompt carries the labels and annotations verbatim.
  const first = h.fake.requests.find((r) => r.path.endsWith("/chat/completions"))
  const user = ((first?.body?.messages ?? []) as Array<{ role: string; content: string }>).find(
    (m) => m.role === "user",
  )
  expect(user?.content).toContain("instance: host-0")
  expect(user?.content).toContain("description: / is 98% full")
  expect(user?.content).toContain("Generator URL: http://prometheus:9090/graph?g0.expr=disk")
}, 60_000)

test("through the service, the prompt carries the start time, cluster name and the runbook_url's runbook", async () => {
  const books = mkdtempSync(join(tmpdir(), "dupin-alert-runbooks-"))
  writeFileSync(join(books, "disk-full.md"), "# Disk full\n\n1. Run df -h.\n2. Rotate /var/log/app.\n")
  h = await startAlertHarness({ clusterName: "prod-eu-1", runbooks: [books] })
  h.fake.script({ content: "Followed the runbook." })
  const body = alertmanagerBody([
    {
      annotations: {
        summary: "Disk almost full",
        runbook_url: "https://git.example/ops/runbooks/disk-full.md",
      },
    },
  ])
  const { investigations } = (await (await h.postAlerts(body)).json()) as {
    investigations: Array<{ id: string }>
  }
  expect((await waitForStatus(h, investigations[0]!.id, ["done", "failed"])).status).toBe("done")
  const first = h.fake.requests.find((r) => r.path.endsWith("/chat/completions"))
  const user = ((first?.body?.messages ?? []) as Array<{ role: string; content: string }>).find(
    (m) => m.role === "user",
  )
  expect(user?.content).toContain("Started at: 2026-11-26T10:00:00Z")
  expect(user?.content).toContain("Cluster: prod-eu-1")
  expect(user?.content).toContain("summary: Disk almost full")
  expect(user?.content).toContain("<runbook>\n# Disk full")
  expect(user?.content).toContain("2. Rotate /var/log/app.")
  rmSync(books, { recursive: true, force: true })
}, 60_000)

test("a repeated fingerprint is deduplicated; a resolved alert starts nothing", async () => {
  h = await startAlertHarness()
  h.fake.script({ content: "ok" }, { content: "ok" })
  const first = (await (await h.postAlerts(alertmanagerBody([{ fingerprint: "same" }]))).json()) as {
    investigations: Array<{ id: string }>
  }
  const again = await h.postAlerts(
    alertmanagerBody([{ fingerprint: "same" }, { fingerprint: "gone", status: "resolved" }]),
  )
  expect(again.status).toBe(202)
  const body = (await again.json()) as { investigations: Array<{ id: string; deduplicated?: boolean }> }
  expect(body.investigations).toEqual([
    expect.objectContaining({ id: first.investigations[0]!.id, fingerprint: "same", deduplicated: true }),
  ])
  const list = (await (await h.get("/api/investigations")).json()) as { investigations: unknown[] }
  expect(list.investigations).toHaveLength(1)
}, 60_000)

test("calls that need approval are refused and the model is told; nothing runs", async () => {
  h = await startAlertHarness()
  h.fake.script(
    { toolCalls: [{ name: "restart", arguments: { service: "nginx" } }] },
    { content: "Run the restart yourself." },
  )
  const res = await h.postAlerts(alertmanagerBody([{}]))
  const { investigations } = (await res.json()) as { investigations: Array<{ id: string }> }
  const done = await waitForStatus(h, investigations[0]!.id, ["done", "failed"])
  expect(done.status).toBe("done")
  const second = h.fake.requests.filter((r) => r.path.endsWith("/chat/completions"))[1]
  const toolMessage = ((second?.body?.messages ?? []) as Array<{ role: string; content: string }>).find(
    (m) => m.role === "tool",
  )
  expect(toolMessage?.content).toContain("approval")
  expect(() => readFileSync(join(h!.dir, "restarted.txt"))).toThrow()
}, 60_000)

test("bad bodies get 422 with the field; unknown fields are ignored; huge values are capped", async () => {
  h = await startAlertHarness()
  h.fake.script({ content: "ok" })
  for (const bad of [
    { hello: "world" },
    { alerts: "nope" },
    { version: "3", alerts: [] },
    { alerts: [{ status: "firing", labels: { a: 1 } }] },
    { alerts: [{ status: "weird", labels: {} }] },
    "[1,2]",
    "{not json",
    "",
  ]) {
    const res = await h.postAlerts(bad)
    expect(res.status).toBe(422)
    const body = (await res.json()) as { error_code: number; errors?: unknown[] }
    expect(body.error_code).toBe(4220)
  }
  const huge = "x".repeat(100_000)
  const body = alertmanagerBody([
    { labels: { alertname: "Huge", big: huge }, annotations: { summary: huge } },
  ])
  const res = await h.postAlerts({
    ...body,
    somethingNew: { nested: true },
    alerts: [{ ...(body.alerts as object[])[0], extra: 1 }],
  })
  expect(res.status).toBe(202)
  const { investigations } = (await res.json()) as { investigations: Array<{ id: string }> }
  const record = (await (await h.get(`/api/investigations/${investigations[0]!.id}`)).json()) as {
    alert: { labels: Record<string, string>; annotations: Record<string, string> }
  }
  expect(record.alert.labels.big!.length).toBeLessThan(4200)
  expect(record.alert.annotations.summary).toContain("[truncated")
}, 60_000)

test("the API's auth applies: no token, 401", async () => {
  h = await startAlertHarness({ server: { auth_token: "s3cret" } })
  expect((await h.postAlerts(alertmanagerBody([{}]))).status).toBe(401)
  expect((await h.get("/api/investigations")).status).toBe(401)
  h.fake.script({ content: "ok" })
  expect((await h.postAlerts(alertmanagerBody([{}]), { authorization: "Bearer s3cret" })).status).toBe(202)
}, 60_000)

test("list: newest first, status filter, limit; bad filters are 422; unknown id is 404", async () => {
  h = await startAlertHarness({ alerts: { max_concurrent: 1 } })
  h.fake.script({ content: "a" }, { content: "b" }, { content: "c" })
  await h.postAlerts(alertmanagerBody([{ fingerprint: "f1" }]))
  await h.postAlerts(alertmanagerBody([{ fingerprint: "f2" }]))
  await h.postAlerts(alertmanagerBody([{ fingerprint: "f3" }]))
  const all = (await (await h.get("/api/investigations")).json()) as {
    investigations: Array<{ fingerprint: string; id: string }>
  }
  expect(all.investigations.map((i) => i.fingerprint)).toEqual(["f3", "f2", "f1"])
  for (const i of all.investigations) await waitForStatus(h, i.id, ["done"])
  const two = (await (await h.get("/api/investigations?status=done&limit=2")).json()) as {
    investigations: unknown[]
  }
  expect(two.investigations).toHaveLength(2)
  expect((await h.get("/api/investigations?status=bogus")).status).toBe(422)
  expect((await h.get("/api/investigations?limit=0")).status).toBe(422)
  expect((await h.get("/api/investigations/inv_nope")).status).toBe(404)
  const info = (await (await h.get("/api/info")).json()) as { alerts: { counts: Record<string, number> } }
  expect(info.alerts.counts.done).toBe(3)
  const metrics = await (await h.get("/metrics")).text()
  expect(metrics).toContain('dupin_alerts_received_total{outcome="created"} 3')
  expect(metrics).toContain('dupin_investigation_duration_seconds_count{status="done"} 3')
}, 60_000)
