import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { alertPrompt, matchRunbook } from "../../src/alerts/prompt.ts"
import { RunbookCatalog } from "../../src/runbook/catalog.ts"
import type { AlertInput } from "../../src/store/investigation.ts"
import { type AlertHarness, alertmanagerBody, startAlertHarness, waitForStatus } from "./support.ts"

function runbooks(): RunbookCatalog {
  const dir = mkdtempSync(join(tmpdir(), "dupin-runbooks-"))
  writeFileSync(join(dir, "disk-full.md"), "# Disk full\n\n1. Run df -h.\n2. Rotate /var/log.\n")
  writeFileSync(join(dir, "other.md"), "# Other\n\nNothing.\n")
  return RunbookCatalog.load([dir])
}

const alert: AlertInput = {
  fingerprint: "abc123",
  status: "firing",
  labels: { alertname: "DiskFull", severity: "critical", "weird label": "a: b\nc" },
  annotations: {
    summary: "Disk almost full",
    description: "/ is 98% full",
    runbook_url: "https://git.example/runbooks/disk-full.md",
  },
  startsAt: "2026-11-26T10:00:00Z",
  endsAt: null,
  generatorURL: "http://prometheus:9090/graph?g0.expr=disk",
}

test("the prompt carries labels and annotations verbatim, start, generator URL, cluster, runbook", () => {
  const text = alertPrompt({ alert, clusterName: "prod-eu-1", runbooks: runbooks() })
  expect(text).toContain("  weird label: a: b\nc")
  expect(text).toContain("  summary: Disk almost full")
  expect(text).toContain("  description: / is 98% full")
  expect(text).toContain("Started at: 2026-11-26T10:00:00Z")
  expect(text).toContain("Generator URL: http://prometheus:9090/graph?g0.expr=disk")
  expect(text).toContain("Cluster: prod-eu-1")
  expect(text).toContain("<runbook>\n# Disk full")
  expect(text).toContain("Rotate /var/log.")
  expect(text).toContain("Nobody is there to answer questions or approve tool calls")
  // Labels come before dupin's instructions.
  expect(text.indexOf("weird label")).toBeLessThan(text.indexOf("Investigate it now"))
})

test("a runbook_url matches a catalog entry by id, file name or URL path; otherwise none", () => {
  const catalog = runbooks()
  expect(matchRunbook("disk-full", catalog)?.id).toBe("disk-full")
  expect(matchRunbook("disk-full.md", catalog)?.id).toBe("disk-full")
  expect(matchRunbook("https://wiki.example/ops/disk-full", catalog)?.id).toBe("disk-full")
  expect(matchRunbook("https://wiki.example/ops/not-there.md", catalog)).toBeUndefined()
  expect(matchRunbook(undefined, catalog)).toBeUndefined()
  const without = alertPrompt({ alert: { ...alert, annotations: { runbook_url: "https://x/none" } } })
  expect(without).not.toContain("<runbook>")
})

let h: AlertHarness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

test("an investigation past its wall-clock limit is stopped and marked failed, saying why", async () => {
  h = await startAlertHarness({}, { timeoutMs: 1500 })
  h.fake.script({ toolCalls: [{ name: "nap", arguments: { seconds: "30" } }] }, { content: "never" })
  const res = await h.postAlerts(alertmanagerBody([{}]))
  const { investigations } = (await res.json()) as { investigations: Array<{ id: string }> }
  const record = await waitForStatus(h, investigations[0]!.id, ["done", "failed"], 20_000)
  expect(record.status).toBe("failed")
  expect(String(record.error)).toContain("took longer than its 2 s limit")
}, 60_000)

test("the step limit holds: max_steps model calls at most", async () => {
  h = await startAlertHarness({ maxSteps: 2 })
  h.fake.script(
    { toolCalls: [{ name: "check_disk", arguments: { host: "a" } }] },
    { content: "Answered on the last step." },
  )
  const res = await h.postAlerts(alertmanagerBody([{}]))
  const { investigations } = (await res.json()) as { investigations: Array<{ id: string }> }
  const record = await waitForStatus(h, investigations[0]!.id, ["done", "failed"])
  expect(record.status).toBe("done")
  const calls = h.fake.requests.filter((r) => r.path.endsWith("/chat/completions"))
  expect(calls).toHaveLength(2)
  expect(calls[1]?.body?.tool_choice).toBe("none")
}, 60_000)
