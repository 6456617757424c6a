import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { lines, StandIns } from "./stand-ins.ts"

const LOG = lines(
  "2024-05-01T10:00:00Z starting server",
  "2024-05-01T10:00:01Z GET /healthz 200",
  "2024-05-01T10:00:02Z ERROR db connection refused",
  "2024-05-01T10:00:03Z GET /healthz 200",
  "2024-05-01T10:00:04Z error: retry 1 $(touch x)",
  "2024-05-01T10:00:05Z FATAL giving up",
)

let k: StandIns

beforeAll(async () => {
  k = new StandIns(["kubectl"])
  await k.executor.ensureReady()
})
afterAll(() => k.cleanup())
beforeEach(() => k.reset())

describe("kubernetes/logs", () => {
  test("is enabled by the kubectl prerequisite", () => {
    expect(k.toolset("kubernetes/logs").status).toBe("enabled")
  })

  test("defaults: every container with prefixes, timestamps, the last 500 lines kept by kubectl", async () => {
    k.respond("kubectl", LOG)
    const r = await k.call("fetch_pod_logs", { pod: "web-1", namespace: "shop" })
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    expect(r.data).toBe(LOG)
    expect(k.calls()).toEqual([
      [
        "kubectl",
        "logs",
        "web-1",
        "--namespace",
        "shop",
        "--all-containers",
        "--prefix",
        "--timestamps",
        "--tail",
        "500",
      ],
    ])
  })

  test("container, previous, since and limit", async () => {
    k.respond("kubectl", LOG)
    await k.call("fetch_pod_logs", {
      pod: "web-1",
      namespace: "shop",
      container: "app",
      previous: true,
      since: "1h30m",
      limit: 50,
    })
    await k.call("fetch_pod_logs", { pod: "web-1", namespace: "shop", previous: false, limit: 99999 })
    expect(k.calls()).toEqual([
      [
        "kubectl",
        "logs",
        "web-1",
        "--namespace",
        "shop",
        "--container",
        "app",
        "--previous",
        "--since",
        "1h30m",
        "--timestamps",
        "--tail",
        "50",
      ],
      // The limit is capped at 10000 lines.
      [
        "kubectl",
        "logs",
        "web-1",
        "--namespace",
        "shop",
        "--all-containers",
        "--prefix",
        "--timestamps",
        "--tail",
        "10000",
      ],
    ])
  })

  test("include and exclude filter every line, then the limit keeps the last matches", async () => {
    k.respond("kubectl", LOG)
    const r = await k.call("fetch_pod_logs", {
      pod: "web-1",
      namespace: "shop",
      include: "ERROR|error|FATAL",
      exclude: "retry",
      limit: 1,
    })
    expect(r.data).toBe("2024-05-01T10:00:05Z FATAL giving up\n")
    const only = await k.call("fetch_pod_logs", { pod: "web-1", namespace: "shop", exclude: "healthz" })
    expect(only.data).not.toContain("healthz")
    expect(only.data).toContain("starting server")
    // With a filter kubectl returns everything (no --tail); tail cuts after filtering.
    expect(k.calls()).toEqual([
      ["kubectl", "logs", "web-1", "--namespace", "shop", "--all-containers", "--prefix", "--timestamps"],
      ["kubectl", "logs", "web-1", "--namespace", "shop", "--all-containers", "--prefix", "--timestamps"],
    ])
  })

  test("a filter matching nothing is an empty result, not a failure", async () => {
    k.respond("kubectl", LOG)
    const r = await k.call("fetch_pod_logs", { pod: "web-1", namespace: "shop", include: "panic" })
    expect(r.status).toBe(ToolResultStatus.NO_DATA)
    expect(r.returnCode).toBe(0)
  })

  test("a kubectl failure stays a failure through the filters", async () => {
    k.respond("kubectl", "", { exitCode: 1, stderr: 'Error from server (NotFound): pods "gone" not found\n' })
    const r = await k.call("fetch_pod_logs", { pod: "gone", namespace: "shop", include: "x", exclude: "y" })
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.returnCode).toBe(1)
    expect(r.error).toContain('pods "gone" not found')
  })

  test("an invalid regular expression is reported by grep", async () => {
    k.respond("kubectl", LOG)
    const r = await k.call("fetch_pod_logs", { pod: "web-1", namespace: "shop", include: "(unclosed" })
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.error).toMatch(/grep: .*(parenthes|\()/i)
  })

  test("filters are data: shell syntax and leading dashes reach grep as patterns", async () => {
    k.respond("kubectl", LOG)
    const mark = k.marker("logs")
    const r = await k.call("fetch_pod_logs", { pod: "web-1", namespace: "shop", include: "$(touch x)" })
    // `$(touch x)` as an ERE: `$` anchors nothing useful, so it matches no line; nothing ran either.
    expect(r.status).toBe(ToolResultStatus.NO_DATA)
    const literal = await k.call("fetch_pod_logs", {
      pod: "web-1",
      namespace: "shop",
      include: "retry 1 \\$",
    })
    expect(literal.data).toBe("2024-05-01T10:00:04Z error: retry 1 $(touch x)\n")
    const semi = await k.call("fetch_pod_logs", {
      pod: "web-1",
      namespace: "shop",
      exclude: `x; touch ${mark}`,
    })
    expect(semi.data).toBe(LOG)
    // A value starting with `-` is allowed here and stays the operand of -e, never an option.
    const dash = await k.call("fetch_pod_logs", { pod: "web-1", namespace: "shop", include: "-v" })
    expect(dash.status).toBe(ToolResultStatus.NO_DATA)
    expect(existsSync(mark)).toBe(false)
    expect(existsSync("x")).toBe(false)
  })

  test("pod, namespace, container and since are pattern-checked before kubectl runs", async () => {
    const mark = k.marker("pod")
    for (const args of [
      { pod: `web-1; touch ${mark}`, namespace: "shop" },
      { pod: "web-1", namespace: "$(id)" },
      { pod: "web-1", namespace: "shop", container: "--kubeconfig=/tmp/x" },
      { pod: "web-1", namespace: "shop", since: "1h; id" },
      { pod: "web-1", namespace: "shop", include: "a\nb" },
      { pod: "web-1", namespace: "shop", limit: -5 },
    ]) {
      const r = await k.call("fetch_pod_logs", args)
      expect(r.status).toBe(ToolResultStatus.ERROR)
    }
    expect(k.calls()).toEqual([])
    expect(existsSync(mark)).toBe(false)
  })
})
