import { afterEach, describe, expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config } from "../../src/config/config.ts"
import { ConfigError } from "../../src/errors.ts"
import { setLogLevel, setLogSink } from "../../src/log.ts"
import { isLoopback, type RunningServer, startServer } from "../../src/server/server.ts"
import { startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"
import { type Harness, parseFrames, startHarness } from "./harness.ts"

let h: Harness | undefined
afterEach(async () => {
  await h?.stop()
  h = undefined
})

const slowToolset = {
  "slow/check": {
    description: "A toolset whose prerequisite takes a while",
    prerequisites: [{ command: "sleep 0.5" }],
    tools: [{ name: "slow_tool", description: "Nothing", command: "true" }],
  },
  "broken/check": {
    description: "A toolset whose prerequisite fails",
    prerequisites: [{ command: "exit 3" }],
    tools: [{ name: "broken_tool", description: "Nothing", command: "true" }],
  },
}

/** A toolset whose prerequisite check runs until `gate` exists: "still running" without a clock. */
function gatedToolset(gate: string) {
  return {
    "gated/check": {
      description: "A toolset whose prerequisite waits for the test",
      prerequisites: [{ command: `while [ ! -e ${gate} ]; do sleep 0.02; done` }],
      tools: [{ name: "gated_tool", description: "Nothing", command: "true" }],
    },
  }
}

type Info = { toolsets: Array<{ name: string; status: string }> }

describe("operations", () => {
  test("/healthz always; /readyz 200 once toolsets are loaded, without waiting for slow prerequisites", async () => {
    const gate = join(mkdtempSync(join(tmpdir(), "dupin-gate-")), "release")
    try {
      h = await startHarness({ init: { toolsets: gatedToolset(gate) } })
      expect(await (await fetch(`${h.url}/healthz`)).json()).toEqual({ status: "ok" })
      const ready = await fetch(`${h.url}/readyz`)
      expect(ready.status).toBe(200)
      // The gated check cannot finish before the gate opens: readiness did not wait for it.
      const info = (await (await fetch(`${h.url}/api/info`)).json()) as Info
      expect(info.toolsets.find((t) => t.name === "gated/check")?.status).not.toBe("enabled")
    } finally {
      writeFileSync(gate, "")
    }
  })

  test("/readyz is 503 with the reason when a toolset cannot be loaded", async () => {
    h = await startHarness({
      init: { toolsets: { "bad/file": { tools: [{ name: "x y", command: "true" }] } } },
    })
    const res = await fetch(`${h.url}/readyz`)
    expect(res.status).toBe(503)
    expect(((await res.json()) as { detail?: string }).detail).toContain("bad/file")
  })

  test("/api/info: version, models, toolsets with status and error", async () => {
    h = await startHarness({ init: { toolsets: slowToolset } })
    // Prerequisites finish in the background (slow/check sleeps 0.5 s); wait for that check.
    const slowChecked = async () => {
      const body = (await (await fetch(`${h!.url}/api/info`)).json()) as {
        toolsets: Array<{ name: string; status: string }>
      }
      return body.toolsets.some((t) => t.name === "slow/check" && t.status === "enabled")
    }
    await waitFor(slowChecked, { what: "slow/check to be checked" })
    const info = (await (await fetch(`${h.url}/api/info`)).json()) as {
      version: string
      models: string[]
      toolsets: Array<{ name: string; status: string; error: string | null; tools: string[] }>
    }
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(info.models).toEqual(["openai/gpt-4o"])
    const byName = Object.fromEntries(info.toolsets.map((t) => [t.name, t]))
    expect(byName["test/tools"]).toMatchObject({
      status: "enabled",
      error: null,
      tools: ["note", "restart", "nap"],
    })
    expect(byName["slow/check"]?.status).toBe("enabled")
    expect(byName["broken/check"]?.status).toBe("failed")
    expect(byName["broken/check"]?.error).toEqual(expect.any(String))
  })

  test("/metrics: requests, latency, LLM calls, tokens and cost by model, tool calls, active streams", async () => {
    h = await startHarness()
    h.fake.script(
      {
        toolCalls: [{ id: "c1", name: "note", arguments: { text: "a" } }],
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      },
      { content: "done", usage: { prompt_tokens: 200, completion_tokens: 20 } },
    )
    await h.stream({ ask: "q" })
    await h.post({})
    const res = await fetch(`${h.url}/metrics`)
    expect(res.headers.get("content-type")).toContain("text/plain")
    const text = await res.text()
    const line = (prefix: string) => text.split("\n").find((l) => l.startsWith(prefix))
    expect(line('dupin_http_requests_total{method="POST",route="/api/chat",status="200"}')).toEndWith(" 1")
    expect(line('dupin_http_requests_total{method="POST",route="/api/chat",status="422"}')).toEndWith(" 1")
    expect(line('dupin_http_request_duration_seconds_count{method="POST",route="/api/chat"}')).toEndWith(" 2")
    expect(
      line('dupin_http_request_duration_seconds_bucket{method="POST",route="/api/chat",le="+Inf"}'),
    ).toEndWith(" 2")
    expect(line('dupin_llm_calls_total{model="openai/gpt-4o"}')).toEndWith(" 2")
    expect(line('dupin_llm_tokens_total{model="openai/gpt-4o",kind="prompt"}')).toEndWith(" 300")
    expect(line('dupin_llm_tokens_total{model="openai/gpt-4o",kind="completion"}')).toEndWith(" 30")
    expect(Number(line('dupin_llm_cost_usd_total{model="openai/gpt-4o"}')?.split(" ")[1])).toBeGreaterThan(0)
    expect(line('dupin_tool_calls_total{tool="note",status="success"}')).toEndWith(" 1")
    expect(line("dupin_active_streams")).toBe("dupin_active_streams 0")
    for (const name of ["dupin_approvals_total", "dupin_compactions_total", "dupin_truncations_total"]) {
      expect(text).toContain(`# TYPE ${name} counter`)
    }
  })

  test("one access-log line per request: method, path, status, duration, model; no secrets", async () => {
    const lines: string[] = []
    const previous = setLogSink((l) => lines.push(l))
    setLogLevel("INFO")
    try {
      h = await startHarness({ init: { server: { auth_token: "tok-123456" } } })
      h.fake.script({ content: "ok" })
      await h.post({ ask: "my secret question" }, { authorization: "Bearer tok-123456" })
      await h.post({ ask: "q" }, { authorization: "Bearer nope" })
      // The access line is written after the response is sent: wait for the second one.
      await waitFor(() => lines.filter((l) => l.includes('"path":"/api/chat"')).length >= 2, {
        what: "two access lines",
      })
    } finally {
      setLogSink(previous)
      setLogLevel("ERROR")
    }
    // onAfterResponse runs once the response is sent, so a line of the previous test may land here.
    const access = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === "request" && l.path === "/api/chat")
    expect(access).toHaveLength(2)
    expect(access[0]).toMatchObject({
      method: "POST",
      path: "/api/chat",
      status: 200,
      model: "openai/gpt-4o",
    })
    expect(access[0]?.duration_ms).toEqual(expect.any(Number))
    expect(access[1]).toMatchObject({ status: 401 })
    const all = lines.join("\n")
    expect(all).not.toContain("tok-123456")
    expect(all).not.toContain("my secret question")
  })
})

describe("startServer", () => {
  const config = (server: Record<string, unknown> = {}) =>
    new Config({ model: "openai/gpt-4o", apiKey: "test", apiBase: "http://127.0.0.1:9/v1", server, env: {} })

  test("refuses a non-loopback host without an auth token, in one line, unless insecure", () => {
    expect(() => startServer(config(), { host: "0.0.0.0", port: 0 })).toThrow(ConfigError)
    expect(() => startServer(config(), { host: "0.0.0.0", port: 0 })).toThrow(
      /^Refusing to listen on 0\.0\.0\.0 without an auth token: [^\n]*--insecure\.$/,
    )
  })

  test("non-loopback with a token, or with --insecure, starts", async () => {
    for (const [cfg, insecure] of [
      [config({ auth_token: "t" }), false],
      [config(), true],
    ] as const) {
      const server = startServer(cfg, { host: "0.0.0.0", port: 0, insecure })
      try {
        expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200)
      } finally {
        await server.shutdown(100)
      }
    }
  })

  test("isLoopback", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"])
      expect(isLoopback(host)).toBe(true)
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "example.com", "127.0.0.1.nip.io"])
      expect(isLoopback(host)).toBe(false)
  })

  test("graceful shutdown: a stream that finishes within the grace period completes; one that does not gets an error event", async () => {
    const fake = await startFakeProvider()
    let server: RunningServer | undefined
    try {
      server = startServer(
        new Config({ model: "openai/gpt-4o", apiKey: "test", apiBase: fake.url, env: {} }),
        { host: "127.0.0.1", port: 0 },
      )
      const url = server.url
      const open = (ask: string) =>
        fetch(`${url}/api/chat`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ask, stream: true }),
        })
      // Quick first, then a provider call that hangs for ever.
      fake.script({ content: "quick answer", delayMs: 200 })
      const completions = () => fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length
      const quick = open("quick")
      // The quick request must take the first scripted step before the stuck one is sent.
      await waitFor(() => completions() === 1, { what: "the quick request at the provider" })
      fake.script({ hang: true })
      const stuck = open("stuck")
      await waitFor(() => completions() === 2, { what: "the stuck request at the provider" })
      const started = Date.now()
      await server.shutdown(600)
      expect(Date.now() - started).toBeLessThan(5000)
      const quickEvents = parseFrames(await (await quick).text()).events
      expect(quickEvents.at(-1)?.event).toBe("ai_answer_end")
      const stuckEvents = parseFrames(await (await stuck).text()).events
      expect(stuckEvents.at(-1)).toEqual({
        event: "error",
        data: {
          description: expect.stringContaining("shutting down"),
          error_code: 1,
          msg: "Request failed",
          success: false,
        },
      })
      // No longer accepting connections.
      expect(fetch(`${url}/healthz`)).rejects.toThrow()
    } finally {
      await server?.shutdown(0)
      await fake.stop()
    }
  })
})
