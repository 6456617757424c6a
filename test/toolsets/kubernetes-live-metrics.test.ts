import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { lines, StandIns } from "./stand-ins.ts"

let k: StandIns

beforeAll(async () => {
  k = new StandIns(["kubectl"])
  await k.executor.ensureReady()
})
afterAll(() => k.cleanup())
beforeEach(() => k.reset())

describe("kubernetes/live-metrics", () => {
  test("kubectl_top_pods: all namespaces by default; namespace, containers and sort order when given", async () => {
    const top = lines(
      "NAMESPACE   NAME    CPU(cores)   MEMORY(bytes)",
      "shop        web-1   250m         812Mi",
    )
    k.respond("kubectl", top)
    const r = await k.call("kubectl_top_pods", {})
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    expect(r.data).toBe(top)
    await k.call("kubectl_top_pods", { namespace: "shop", sort_by: "memory", containers: true })
    await k.call("kubectl_top_pods", { sort_by: "cpu" })
    expect(k.calls()).toEqual([
      ["kubectl", "top", "pods", "--all-namespaces"],
      ["kubectl", "top", "pods", "--namespace", "shop", "--containers", "--sort-by", "memory"],
      ["kubectl", "top", "pods", "--all-namespaces", "--sort-by", "cpu"],
    ])
  })

  test("kubectl_top_nodes, sorted or not", async () => {
    k.respond(
      "kubectl",
      lines(
        "NAME     CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%",
        "node-a   1900m        95%    6Gi             80%",
      ),
    )
    const r = await k.call("kubectl_top_nodes", {})
    expect(r.data).toContain("node-a   1900m        95%")
    await k.call("kubectl_top_nodes", { sort_by: "cpu" })
    expect(k.calls()).toEqual([
      ["kubectl", "top", "nodes"],
      ["kubectl", "top", "nodes", "--sort-by", "cpu"],
    ])
  })

  test("only cpu and memory are sort keys; namespaces are pattern-checked", async () => {
    for (const args of [{ sort_by: "name" }, { namespace: "shop; id" }, { namespace: "--all" }]) {
      expect((await k.call("kubectl_top_pods", args)).status).toBe(ToolResultStatus.ERROR)
    }
    expect(k.calls()).toEqual([])
  })

  test("no metrics-server: kubectl's message reaches the model as an error", async () => {
    k.respond("kubectl", "", { exitCode: 1, stderr: "error: Metrics API not available\n" })
    const r = await k.call("kubectl_top_nodes", {})
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.error).toContain("Metrics API not available")
  })

  test("a missing kubectl fails the toolset", async () => {
    const none = new StandIns([], { pathDirs: [mkdtempSync(join(tmpdir(), "dupin-empty-path-"))] })
    await none.executor.ensureReady()
    expect(none.toolset("kubernetes/live-metrics").error).toBe("kubectl not found on PATH")
    expect(none.toolset("kubernetes/logs").error).toBe("kubectl not found on PATH")
    none.cleanup()
  })
})
