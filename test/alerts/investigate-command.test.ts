import { afterEach, beforeEach, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cliEnv, MAIN, runCli, tempFile } from "../cli/support.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { alertmanagerBody, toolsetYaml } from "./support.ts"

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.stop()
})

test("dupin investigate FILE: ask's progress lines on stderr, the analysis on stdout", async () => {
  const toolsets = tempFile("alerts.yaml", toolsetYaml(mkdtempSync(join(tmpdir(), "dupin-investigate-"))))
  fake.script(
    { toolCalls: [{ name: "check_disk", arguments: { host: "db-1" } }] },
    { content: "The disk of db-1 is full." },
  )
  const file = tempFile(
    "alert.json",
    JSON.stringify(alertmanagerBody([{ labels: { alertname: "DiskFull", instance: "db-1" } }])),
  )
  const result = await runCli(["investigate", file, "--toolset-file", toolsets, "--no-color"], {
    env: cliEnv(fake),
  })
  expect(result.stderr).toContain("check_disk")
  expect(result.stdout).toContain("The disk of db-1 is full.")
  expect(result.code).toBe(0)
  const user = ((fake.requests[0]?.body?.messages ?? []) as Array<{ role: string; content: string }>).find(
    (m) => m.role === "user",
  )
  expect(user?.content).toContain("instance: db-1")
}, 120_000)

test("dupin investigate prints the same progress lines as dupin ask for the same tool calls", async () => {
  const toolsets = tempFile("alerts.yaml", toolsetYaml(mkdtempSync(join(tmpdir(), "dupin-investigate-"))))
  const steps = [
    { toolCalls: [{ name: "check_disk", arguments: { host: "db-1" } }] },
    { content: "The disk of db-1 is full." },
  ]
  fake.script(...steps, ...steps)
  const file = tempFile(
    "alert.json",
    JSON.stringify(alertmanagerBody([{ labels: { alertname: "DiskFull" } }])),
  )
  const flags = ["--toolset-file", toolsets, "--no-color"]
  const investigated = await runCli(["investigate", file, ...flags], { env: cliEnv(fake) })
  const asked = await runCli(["ask", "is the disk of db-1 full?", ...flags], { env: cliEnv(fake) })
  expect(investigated.code).toBe(0)
  expect(asked.code).toBe(0)
  // Only the measured run times differ.
  const lines = (stderr: string) => stderr.replace(/ \d+(\.\d+)?m?s$/gm, " <time>")
  expect(lines(investigated.stderr)).toContain("✓ check_disk(host=db-1) <time>")
  expect(lines(investigated.stderr)).toBe(lines(asked.stderr))
  expect(investigated.stdout).toBe(asked.stdout)
}, 120_000)

test("dupin investigate - --json: one alert on stdin, the record on stdout", async () => {
  fake.script({ content: "Looks fine." })
  const alert = {
    labels: { alertname: "Latency", severity: "page" },
    annotations: { summary: "slow" },
    startsAt: "2026-11-26T10:00:00Z",
  }
  const result = await runCli(["investigate", "-", "--json"], {
    env: cliEnv(fake),
    stdin: JSON.stringify(alert),
  })
  expect(result.code).toBe(0)
  const record = JSON.parse(result.stdout) as Record<string, unknown>
  expect(record.status).toBe("done")
  expect(record.analysis).toBe("Looks fine.")
  expect((record.alert as { labels: Record<string, string> }).labels.alertname).toBe("Latency")
  expect(typeof record.fingerprint).toBe("string")
  expect(record.deliveries).toEqual([])
}, 120_000)

test("dupin investigate: input that is not an alert is a usage error (exit 2)", async () => {
  const bad = await runCli(["investigate", "-"], { env: cliEnv(fake), stdin: '{"hello": 1}' })
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain("Alertmanager")
  const notJson = await runCli(["investigate", "-"], { env: cliEnv(fake), stdin: "nope" })
  expect(notJson.code).toBe(2)
  const missing = await runCli(["investigate", "/no/such/file.json"], { env: cliEnv(fake) })
  expect(missing.code).toBe(2)
}, 120_000)

test("dupin investigate --model takes a provider/model id, as dupin ask --model does", async () => {
  fake.script({ content: "Looks fine." })
  const alert = { labels: { alertname: "Latency" } }
  const env = cliEnv(fake)
  delete env.MODEL
  const result = await runCli(["investigate", "-", "--model", "openai/gpt-4.1-mini", "--json"], {
    env,
    stdin: JSON.stringify(alert),
  })
  expect(result.stderr).toBe("")
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(fake.requests[0]?.body?.model).toBe("gpt-4.1-mini")
}, 120_000)

test("alerts.model picks the investigation's model; one that names no model stops serve at start (exit 2)", async () => {
  fake.script({ content: "Looks fine." })
  const modelList = `modelList:
  default: { model: openai/gpt-4o, api_base: "${fake.url}", api_key: test }
  fast: { model: openai/gpt-4.1-mini, api_base: "${fake.url}", api_key: test }
`
  const good = tempFile("alerts-model.yaml", `${modelList}alerts: { enabled: true, model: fast }\n`)
  const env = cliEnv(fake)
  delete env.MODEL
  const result = await runCli(["investigate", "-", "--json", "--config", good], {
    env,
    stdin: JSON.stringify({ labels: { alertname: "Latency" } }),
  })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(fake.requests[0]?.body?.model).toBe("gpt-4.1-mini")

  // A typo'd key used to start the server and leave alert intake at 503 ("the investigation store
  // could not be opened"); it is a config error, told at start with the names it may take.
  const typo = tempFile("alerts-typo.yaml", `${modelList}alerts: { enabled: true, model: fsat }\n`)
  // Killed after 20 s: a server that starts anyway must not outlive the test.
  const proc = Bun.spawn([process.execPath, MAIN, "serve", "--config", typo, "--port", "0"], {
    env,
    stdout: "ignore",
    stderr: "pipe",
    timeout: 20_000,
  })
  const served = { code: await proc.exited, stderr: await new Response(proc.stderr).text() }
  expect(served.code).toBe(2)
  expect(served.stderr).toContain(
    'alerts.model: "fsat" is not a model of this config. Available models: default, fast.',
  )
}, 120_000)

test("a store.path dupin cannot create stops serve at start (exit 2), naming the key", async () => {
  const notAFolder = tempFile("a-file", "")
  const config = tempFile(
    "store-path.yaml",
    `model: openai/gpt-4o\nalerts: { enabled: true }\nstore: { path: ${notAFolder}/dupin.db }\n`,
  )
  // Killed after 20 s: a server that starts anyway must not outlive the test.
  const proc = Bun.spawn([process.execPath, MAIN, "serve", "--config", config, "--port", "0"], {
    env: cliEnv(fake),
    stdout: "ignore",
    stderr: "pipe",
    timeout: 20_000,
  })
  const served = { code: await proc.exited, stderr: await new Response(proc.stderr).text() }
  expect(served.code).toBe(2)
  expect(served.stderr).toContain(`store.path: cannot create ${notAFolder}/dupin.db`)
}, 60_000)
