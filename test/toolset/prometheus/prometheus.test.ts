import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ToolResultStatus } from "../../../src/tool/result.ts"
import { DEFAULT_TOOL_LIMITS, type ToolContext } from "../../../src/tool/tool.ts"
import type { Toolset } from "../../../src/tool/toolset.ts"
import { createPrometheusToolset } from "../../../src/toolset/prometheus/index.ts"
import {
  freePort,
  PROMETHEUS_MISSING,
  type PrometheusServer,
  prometheusBinary,
  startPrometheus,
} from "./server.ts"

const skip = process.env.DUPIN_SKIP_PROMETHEUS === "1"
const binary = prometheusBinary()
const context: ToolContext = {
  signal: new AbortController().signal,
  toolCallId: "c",
  limits: DEFAULT_TOOL_LIMITS,
  env: {},
}
const check = { env: {}, signal: new AbortController().signal, timeoutSeconds: 10 }

async function run(set: Toolset, name: string, raw: Record<string, unknown> = {}) {
  const tool = set.tools.find((t) => t.name === name)
  if (!tool) throw new Error(`no tool ${name}`)
  const checked = tool.validate(raw)
  if (!checked.ok) throw new Error(checked.error)
  return tool.run(checked.params, context)
}

describe.skipIf(skip)("prometheus binary", () => {
  test("is installed (the tests below run against a real server)", () => {
    if (!binary) throw new Error(PROMETHEUS_MISSING)
    expect(binary).toBeTruthy()
  })
})

describe.skipIf(skip || !binary)("prometheus/metrics against a real Prometheus", () => {
  let server: PrometheusServer
  let set: Toolset

  beforeAll(async () => {
    server = await startPrometheus(binary!)
    set = createPrometheusToolset({ config: { prometheus_url: server.url, timeout_seconds: 10 } })
    await set.checkPrerequisites(check)
  }, 40_000)

  afterAll(async () => {
    await server?.stop()
  })

  test("the prerequisite passes and the toolset is enabled", () => {
    expect(set.error).toBeUndefined()
    expect(set.status).toBe("enabled")
    expect(set.tools.map((t) => t.name)).toEqual([
      "execute_prometheus_instant_query",
      "execute_prometheus_range_query",
      "get_series",
      "get_label_names",
      "get_label_values",
      "get_current_alerts",
      "get_rules",
    ])
  })

  test("instant query: up and prometheus_build_info", async () => {
    const up = await run(set, "execute_prometheus_instant_query", { query: "up" })
    expect(up.status).toBe(ToolResultStatus.SUCCESS)
    const text = String(up.data)
    expect(text.split("\n")[0]).toBe("resultType: vector; 1 series")
    expect(text).toContain('"job":"prometheus"')
    expect(text).toMatch(/"value":\[[\d.]+,"1"\]/)
    const build = await run(set, "execute_prometheus_instant_query", {
      query: "prometheus_build_info",
      time: "now",
    })
    expect(String(build.data)).toContain('"__name__":"prometheus_build_info"')
    expect(String(build.data)).toContain('"version":')
  })

  test("range query with explicit and default times", async () => {
    const explicit = await run(set, "execute_prometheus_range_query", {
      query: "up",
      start: "now-1m",
      end: "now",
      step: "1s",
    })
    expect(explicit.status).toBe(ToolResultStatus.SUCCESS)
    expect(String(explicit.data)).toStartWith("resultType: matrix; 1 series")
    expect(String(explicit.data)).toContain('"values":[[')
    const defaults = await run(set, "execute_prometheus_range_query", { query: "sum(up)" })
    expect(String(defaults.data)).toStartWith("resultType: matrix")
  })

  test("a bad query returns Prometheus' status, errorType and error so the model can fix it", async () => {
    const result = await run(set, "execute_prometheus_instant_query", { query: "sum(up" })
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("HTTP 400")
    expect(result.error).toContain("bad_data")
    expect(result.error).toContain("parse error")
    const badStep = await run(set, "execute_prometheus_range_query", { query: "up", step: "banana" })
    expect(badStep.error).toContain("bad_data")
  })

  test("series, label names and label values", async () => {
    const series = await run(set, "get_series", { match: ["up"] })
    expect(String(series.data)).toStartWith("1 series")
    expect(String(series.data)).toContain('"instance":"')
    const names = String((await run(set, "get_label_names")).data)
    expect(names).toContain('"__name__"')
    expect(names).toContain('"job"')
    const values = String((await run(set, "get_label_values", { label: "job" })).data)
    expect(values).toBe('1 values of job\n"prometheus"')
    const names2 = String(
      (await run(set, "get_label_values", { label: "__name__", match: ['{__name__=~"prometheus_build.*"}'] }))
        .data,
    )
    expect(names2).toContain('"prometheus_build_info"')
  })

  test("current alerts and rules", async () => {
    const alerts = String((await run(set, "get_current_alerts")).data)
    expect(alerts).toContain('"alertname":"AlwaysFiring"')
    expect(alerts).toMatch(/"state":"(pending|firing)"/)
    const rules = String((await run(set, "get_rules")).data)
    expect(rules).toStartWith("2 rules")
    expect(rules).toContain('"name":"AlwaysFiring"')
    expect(rules).toContain('"name":"job:up:sum"')
    expect(rules).toContain('"group":"dupin-test"')
    const recording = String((await run(set, "get_rules", { type: "record" })).data)
    expect(recording).toStartWith("1 rules")
  })

  test("a result over max_output_bytes says how much was left out and how to narrow it", async () => {
    const small = createPrometheusToolset({ config: { prometheus_url: server.url, max_output_bytes: 2048 } })
    const result = await run(small, "execute_prometheus_instant_query", {
      query: '{__name__=~"prometheus_.+"}',
    })
    const text = String(result.data)
    expect(Buffer.byteLength(text)).toBeLessThan(2048 + 400)
    expect(text).toMatch(/\[showing \d+ of \d+: output capped at 2048 bytes\. Narrow the query/)
  })
})

describe("prometheus/metrics without a server", () => {
  test("off until configured; enabled by a URL", () => {
    expect(createPrometheusToolset().enabled).toBe(false)
    expect(createPrometheusToolset({ config: { prometheus_url: "http://p:9090" } }).enabled).toBe(true)
    expect(
      createPrometheusToolset({ enabled: false, config: { prometheus_url: "http://p:9090" } }).enabled,
    ).toBe(false)
  })

  test("enabled without a URL fails with a message naming the setting", async () => {
    const set = createPrometheusToolset({ enabled: true })
    await set.checkPrerequisites(check)
    expect(set.status).toBe("failed")
    expect(set.error).toContain("prometheus_url")
  })

  test("an unreachable server fails the prerequisite with a clear message", async () => {
    const port = await freePort()
    const set = createPrometheusToolset({ config: { prometheus_url: `http://127.0.0.1:${port}` } })
    await set.checkPrerequisites(check)
    expect(set.status).toBe("failed")
    expect(set.error).toContain(`Cannot reach Prometheus at http://127.0.0.1:${port}`)
  })

  test("headers go to Prometheus; a redirect to another origin is not followed", async () => {
    const seen: Array<string | null> = []
    const other = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        seen.push(request.headers.get("authorization"))
        return new Response("{}")
      },
    })
    const fake = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        seen.push(request.headers.get("authorization"))
        return new Response(null, {
          status: 307,
          headers: { location: `http://127.0.0.1:${other.port}/api/v1/alerts` },
        })
      },
    })
    try {
      const set = createPrometheusToolset({
        config: {
          prometheus_url: `http://127.0.0.1:${fake.port}/`,
          headers: { Authorization: "Bearer prom-secret" },
        },
      })
      const result = await run(set, "get_current_alerts")
      expect(result.status).toBe(ToolResultStatus.ERROR)
      expect(result.error).toContain("redirected to another origin")
      expect(seen).toEqual(["Bearer prom-secret"])
    } finally {
      fake.stop(true)
      other.stop(true)
    }
  })

  test("an HTTP error without a JSON body carries the status and the body text", async () => {
    const fake = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response("upstream connect error", { status: 503 }),
    })
    try {
      const set = createPrometheusToolset({ config: { prometheus_url: `http://127.0.0.1:${fake.port}` } })
      const result = await run(set, "get_rules")
      expect(result.error).toBe("Prometheus returned HTTP 503 for /api/v1/rules: upstream connect error")
    } finally {
      fake.stop(true)
    }
  })
})
