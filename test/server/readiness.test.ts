/**
 * `/readyz` is honest about models (issue 12 item 7): while no configured model can be called (none
 * configured, or its provider key unset) it is 503 with the reason, `/api/info` says why, and
 * `serve` warns at start naming what is missing. Judged from config: no provider is called.
 * And plain HTTP/1.0 probes without a Host header (HAProxy's default) get the same answers, with
 * and without the header guard (item 17).
 */
import { afterEach, describe, expect, test } from "bun:test"
import { rmSync } from "node:fs"
import { connect } from "node:net"
import { Config, type ConfigInit } from "../../src/config/config.ts"
import { type RunningServer, startServer } from "../../src/server/server.ts"
import { type ServerProcess, startServerProcess } from "../bench/support/processes.ts"
import { writeServeConfig } from "../bench/support/server-config.ts"
import { startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"

const PATH = process.env.PATH ?? "/usr/bin:/bin"
// A toolset-free config keeps each start fast: readiness here is about models.
const NO_TOOLSETS = { "kubernetes/core": { enabled: false } }

let server: RunningServer | undefined
let proc: ServerProcess | undefined
let dir: string | undefined
afterEach(async () => {
  await server?.shutdown(100)
  server = undefined
  await proc?.stop()
  proc = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
}, 15_000)

function start(init: ConfigInit, env: Record<string, string> = {}, headerTimeoutMs = 10_000): RunningServer {
  server = startServer(new Config({ toolsets: NO_TOOLSETS, ...init, env: { PATH, ...env } }), {
    port: 0,
    headerTimeoutMs,
    drainMs: 0,
  })
  return server
}

type Info = { ready: boolean; not_ready_reason: string | null; models: string[] }

async function probe(
  s: RunningServer,
): Promise<{ status: number; body: Record<string, unknown>; info: Info }> {
  const res = await fetch(`${s.url}/readyz`)
  const info = (await (await fetch(`${s.url}/api/info`)).json()) as Info
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, info }
}

describe("readiness judges the models from config", () => {
  test("no model configured: /readyz 503 no_model, /api/info says so", async () => {
    const { status, body, info } = await probe(start({}))
    expect(status).toBe(503)
    expect(body).toEqual({ status: "no_model", detail: expect.stringContaining("no model configured") })
    expect(info.ready).toBe(false)
    expect(info.not_ready_reason).toContain("no model configured")
  })

  test("a provider key that is not set: 503 naming the variable", async () => {
    const { status, body, info } = await probe(start({ model: "openai/gpt-4o" }))
    expect(status).toBe(503)
    expect(body.detail).toContain("OPENAI_API_KEY")
    expect(info).toMatchObject({ ready: false, models: ["openai/gpt-4o"] })
    expect(info.not_ready_reason).toContain("OPENAI_API_KEY")
  })

  test("a key from an unset {{ env.X }} names X", async () => {
    const { status, body } = await probe(
      start({ model: "openai/gpt-4o", apiKey: "{{ env.DUPIN_TEST_NO_KEY }}" }),
    )
    expect(status).toBe(503)
    expect(body.detail).toContain("DUPIN_TEST_NO_KEY is not set")
  })

  test("an unusable api_base is the reason, without the credentials or query it carries (/readyz is unauthenticated)", async () => {
    for (const apiBase of [
      "http://ops:s3cret-pw@llm.internal:80a/v1",
      "http://llm.internal:99999/v1?api-key=s3cret-q",
    ]) {
      const s = start({ model: "openai/qwen3", apiKey: "k", apiBase })
      const res = await fetch(`${s.url}/readyz`)
      const text = await res.text()
      expect(res.status).toBe(503)
      expect(text).toContain("Invalid base URL")
      expect(text).not.toContain("s3cret")
      const info = await (await fetch(`${s.url}/api/info`)).text()
      expect(info).toContain("Invalid base URL")
      expect(info).not.toContain("s3cret")
      await s.shutdown(100)
      server = undefined
    }
  })

  test("ready with the key set, with an Ollama model (no key), and when one modelList entry can be called", async () => {
    for (const [init, env] of [
      [{ model: "openai/gpt-4o" }, { OPENAI_API_KEY: "k" }],
      [{ model: "ollama/llama3.1" }, {}],
      [
        {
          modelList: {
            local: { model: "ollama/llama3.1", api_base: "http://127.0.0.1:9/v1" },
            broken: { model: "anthropic/claude-sonnet-4-5" },
          },
        },
        {},
      ],
    ] as Array<[ConfigInit, Record<string, string>]>) {
      const s = start(init, env)
      const { status, body, info } = await probe(s)
      expect({ status, body }).toEqual({ status: 200, body: { status: "ok" } })
      expect(info).toMatchObject({ ready: true, not_ready_reason: null })
      await s.shutdown(100)
      server = undefined
    }
  })

  test("not ready when the default model cannot be called, although another modelList entry can", async () => {
    const s = start(
      {
        model: "broken",
        modelList: {
          local: { model: "ollama/llama3.1", api_base: "http://127.0.0.1:9/v1" },
          broken: { model: "anthropic/claude-sonnet-4-5" },
        },
      },
      {},
    )
    const { status, body, info } = await probe(s)
    expect(status).toBe(503)
    expect(body).toMatchObject({ status: "no_model" })
    expect(String((body as { detail: string }).detail)).toContain("default model broken")
    expect(String((body as { detail: string }).detail)).toContain("ANTHROPIC_API_KEY")
    expect(info).toMatchObject({ ready: false })
    await s.shutdown(100)
    server = undefined
  })

  test("serve warns at start naming the missing key variable, and is not ready", async () => {
    const files = writeServeConfig("http://127.0.0.1:9/v1")
    dir = files.dir
    const config = `${files.dir}/nokey.yaml`
    await Bun.write(
      config,
      "model: anthropic/claude-sonnet-4-5\ntoolsets:\n  kubernetes/core: { enabled: false }\n",
    )
    proc = await startServerProcess(["bun", "src/main.ts", "serve", "--config", config, "--port", "0"])
    const started = proc
    const warning = await waitFor(
      () => started.log.find((line) => line.includes('"level":"WARN"') && line.includes("ANTHROPIC_API_KEY")),
      { what: "the start-up warning naming ANTHROPIC_API_KEY" },
    )
    expect(warning).toContain("model anthropic/claude-sonnet-4-5 cannot be called")
    expect((await fetch(`${proc.url}/readyz`)).status).toBe(503)
  }, 30_000)
})

/** One request on a fresh connection, read until the server closes it (HTTP/1.0). */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let data = ""
    socket.setEncoding("utf8")
    socket.on("data", (chunk) => {
      data += chunk
    })
    socket.on("error", reject)
    socket.on("close", () => resolve(data))
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(request)}`)))
    socket.write(request)
  })
}

describe("HTTP/1.0 probes without a Host header", () => {
  for (const headerTimeoutMs of [10_000, 0]) {
    const mode = headerTimeoutMs ? "through the header guard" : "without the header guard"
    test(`/readyz, /healthz and /api/info answer normally ${mode}`, async () => {
      const fake = await startFakeProvider()
      try {
        const s = start({ model: "openai/gpt-4o", apiKey: "k", apiBase: fake.url }, {}, headerTimeoutMs)
        for (const path of ["/readyz", "/healthz"]) {
          const answer = await rawRequest(s.port, `GET ${path} HTTP/1.0\r\n\r\n`)
          expect(answer).toStartWith("HTTP/1.1 200 OK\r\n")
          expect(answer).toEndWith('\r\n\r\n{"status":"ok"}')
        }
        expect(await rawRequest(s.port, "GET /api/info HTTP/1.0\r\n\r\n")).toMatch(
          /^HTTP\/1\.1 200 [\s\S]*"ready":true/,
        )
        // Not ready is told the same way: 503 with the reason, not a 500.
        await s.shutdown(100)
        const blind = start({}, {}, headerTimeoutMs)
        const notReady = await rawRequest(blind.port, "GET /readyz HTTP/1.0\r\n\r\n")
        expect(notReady).toStartWith("HTTP/1.1 503 ")
        expect(notReady).toContain('"status":"no_model"')
      } finally {
        await fake.stop()
      }
    })
  }
})

describe("the start's background work waits for the first readiness probe (issue 19 item 5)", () => {
  const settledWithin = (promise: Promise<void>, ms: number) =>
    Promise.race([promise.then(() => true), Bun.sleep(ms).then(() => false)])

  test("it starts once a /readyz has answered 200, not before", async () => {
    const fake = await startFakeProvider()
    try {
      const s = start({ model: "openai/gpt-4o", apiKey: "k", apiBase: fake.url })
      // Held right after the bind (each step would hold the loop 5-25 ms while a probe waits)...
      expect(await settledWithin(s.afterStart, 20)).toBe(false)
      expect((await fetch(`${s.url}/readyz`)).status).toBe(200)
      // ...and released by the probe's answer, well before the timer would.
      expect(await settledWithin(s.afterStart, 50)).toBe(true)
    } finally {
      await fake.stop()
    }
  })

  test("without a probe, or while /readyz is 503, it starts a moment after the bind", async () => {
    const s = start({})
    expect((await fetch(`${s.url}/readyz`)).status).toBe(503)
    expect(await settledWithin(s.afterStart, 2000)).toBe(true)
  })
})
