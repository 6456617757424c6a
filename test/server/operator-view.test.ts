/**
 * Issue 21 item 6: the server tells its operator what it is doing. The start log names the build,
 * the config file, the default model, the containment level and every failed toolset with its
 * reason; a provider failure names the URL tried; `/api/model` marks models that cannot be called,
 * and choosing one is a 400 naming the variable, never a 500 carrying the config file's path.
 */
import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setLogLevel, setLogSink } from "../../src/log.ts"
import { VERSION } from "../../src/version.ts"
import { type ServerProcess, startServerProcess } from "../bench/support/processes.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"
import { type Harness, startHarness } from "./harness.ts"

let proc: ServerProcess | undefined
let h: Harness | undefined
let stopAfter: FakeProvider | undefined
afterEach(async () => {
  await stopAfter?.stop()
  stopAfter = undefined
  await proc?.stop()
  proc = undefined
  await h?.stop()
  h = undefined
}, 15_000)

test("the start log names version, config, default model, containment and each failed toolset", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dupin-serve-log-"))
  writeFileSync(
    join(dir, "team.yaml"),
    "toolsets:\n  team/needs-var:\n    description: d\n    prerequisites:\n      - env: [DUPIN_TEST_NOT_SET]\n" +
      "    tools:\n      - { name: team_echo, description: d, command: echo hi }\n",
  )
  const config = join(dir, "config.yaml")
  writeFileSync(
    config,
    "model: ollama/llama3.1\ncustom_toolsets: [team.yaml]\ntoolsets:\n  kubernetes/core: { enabled: false }\n",
  )
  proc = await startServerProcess(["bun", "src/main.ts", "serve", "--config", config, "--port", "0"])
  const started = proc
  const start = await waitFor(() => started.log.find((line) => line.includes(`"version":"${VERSION}"`)), {
    what: "the start line",
  })
  expect(JSON.parse(start)).toMatchObject({
    config,
    default_model: "ollama/llama3.1",
    containment: expect.any(String),
  })
  const failed = await waitFor(
    () => started.log.find((line) => line.includes("toolset team/needs-var failed")),
    {
      what: "the failed toolset's line",
    },
  )
  expect(failed).toContain("DUPIN_TEST_NOT_SET")
}, 30_000)

test("/api/model marks a model whose key is unset; choosing it is a 400 naming the variable", async () => {
  const configFile = join(mkdtempSync(join(tmpdir(), "dupin-private-")), "config.yaml")
  h = await startHarness({
    init: {
      configFile,
      model: "fast",
      modelList: {
        fast: { model: "openai/gpt-4o", api_key: "test", api_base: "http://127.0.0.1:9/v1" },
        paid: { model: "anthropic/claude-sonnet-4-5", api_key: "{{ env.DUPIN_TEST_PAID_KEY }}" },
      },
    },
  })
  const listed = (await (await fetch(`${h.url}/api/model`)).json()) as {
    model_name: string[]
    models: Array<{ name: string; callable: boolean; variable?: string }>
  }
  expect(listed.model_name).toEqual(["fast", "paid"])
  expect(listed.models).toEqual([
    { name: "fast", callable: true },
    expect.objectContaining({ name: "paid", callable: false, variable: "DUPIN_TEST_PAID_KEY" }),
  ])
  const res = await h.post({ ask: "q", model: "paid" })
  expect(res.status).toBe(400)
  const body = (await res.json()) as { detail: string }
  expect(body.detail).toContain("DUPIN_TEST_PAID_KEY")
  expect(body.detail).not.toContain(configFile)
}, 30_000)

test("a provider failure names the URL tried in the response and the log", async () => {
  h = await startHarness()
  h.fake.script(...Array.from({ length: 6 }, () => ({ status: 503, headers: { "retry-after-ms": "1" } })))
  const lines: string[] = []
  const sink = setLogSink((line) => lines.push(line))
  const level = setLogLevel("INFO")
  let res: Response
  try {
    res = await h.post({ ask: "q" })
  } finally {
    setLogSink(sink)
    setLogLevel(level)
  }
  const logged = lines.find((l) => l.includes("model call failed"))
  expect(logged).toContain(h.fake.url.replace(/\/$/, ""))
  expect(res.status).toBe(502)
  const body = (await res.json()) as { detail: string }
  expect(body.detail).toContain(h.fake.url.replace(/\/$/, ""))
}, 30_000)

test("the URL a provider failure names carries no secret: not the key, not a password in the URL", async () => {
  // A key of no known shape, echoed back by a proxy's error body; a password in api_base.
  const key = "proxy-key-of-no-shape-5f2c9a"
  const closed = Bun.serve({ port: 0, fetch: () => new Response("") })
  const port = closed.port
  closed.stop(true)
  const proxy = await startFakeProvider()
  stopAfter = proxy
  h = await startHarness({
    init: {
      model: "echo",
      modelList: {
        echo: { model: "openai/gpt-4o", api_key: key, api_base: proxy.url },
        creds: {
          model: "openai/gpt-4o",
          api_key: key,
          api_base: `http://dupin:url-pass-7781@127.0.0.1:${port}/v1`,
        },
      },
    },
  })
  const echoUrl = proxy.url.replace(/\/$/, "")
  proxy.script({ status: 401, body: { error: { message: `bad key: Bearer ${key} (${key})` } } })
  const lines: string[] = []
  const sink = setLogSink((line) => lines.push(line))
  const level = setLogLevel("INFO")
  let echoed: { status: number; detail: string }
  let creds: { status: number; detail: string }
  try {
    const a = await h.post({ ask: "q", model: "echo" })
    echoed = { status: a.status, detail: ((await a.json()) as { detail: string }).detail }
    const b = await h.post({ ask: "q", model: "creds" })
    creds = { status: b.status, detail: ((await b.json()) as { detail: string }).detail }
  } finally {
    setLogSink(sink)
    setLogLevel(level)
  }
  expect(echoed.status).toBe(502)
  expect(echoed.detail).toContain(echoUrl)
  expect(creds.status).toBe(502)
  expect(creds.detail).toContain(`http://127.0.0.1:${port}/v1`)
  for (const text of [echoed.detail, creds.detail, lines.join("\n")]) {
    expect(text).not.toContain(key)
    expect(text).not.toContain("url-pass-7781")
  }
}, 30_000)
