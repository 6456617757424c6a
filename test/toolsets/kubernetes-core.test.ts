import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { lines, StandIns } from "./stand-ins.ts"

const PODS_TABLE = lines(
  "NAMESPACE   NAME          READY   STATUS             RESTARTS   AGE   IP          NODE     LABELS",
  "shop        web-1         1/1     Running            0          2d    10.0.0.4    node-a   app=web",
  "shop        checkout-2    0/1     CrashLoopBackOff   12         1h    10.0.0.9    node-b   app=checkout",
  "ops         $(touch x)    1/1     Running            0          5m    10.0.0.7    node-a   app=odd",
)

const PODS_JSON = JSON.stringify({
  apiVersion: "v1",
  kind: "List",
  items: [
    { metadata: { namespace: "shop", name: "web-1" }, status: { phase: "Running" } },
    { metadata: { namespace: "shop", name: "checkout-2" }, status: { phase: "Pending" } },
    { metadata: { namespace: "ops", name: "batch-3" }, status: { phase: "Pending" } },
  ],
})

const KIND_TOOLS: Array<[string, Record<string, unknown>]> = [
  ["kubectl_describe", { name: "x", namespace: "default" }],
  ["kubectl_get_by_name", { name: "x", namespace: "default" }],
  ["kubectl_get_by_kind_in_namespace", { namespace: "default" }],
  ["kubectl_get_by_kind_in_cluster", {}],
  ["kubectl_find_resource", { keyword: "x" }],
  ["kubectl_get_yaml", { name: "x" }],
  ["kubectl_events", { namespace: "default", name: "x" }],
  ["kubernetes_jq_query", { jq_expr: ".items[]" }],
  ["kubernetes_count", { jq_expr: ".items[]" }],
]

let k: StandIns

/** A call run as after a human approved it. */
function callApproved(standIns: StandIns, name: string, args: Record<string, unknown>) {
  const prepared = standIns.executor.prepare({
    id: "call-approved",
    type: "function",
    function: { name, arguments: JSON.stringify(args) },
  })
  return standIns.executor.run(prepared, new AbortController().signal, true)
}

function approvalReason(name: string, args: Record<string, unknown>): string | undefined {
  return k.executor.prepare({
    id: "call-0",
    type: "function",
    function: { name, arguments: JSON.stringify(args) },
  }).approvalReason
}

beforeAll(async () => {
  k = new StandIns(["kubectl"])
  await k.executor.ensureReady()
})
afterAll(() => k.cleanup())
beforeEach(() => k.reset())

describe("kubernetes/core prerequisites", () => {
  test("enabled when kubectl answers `version --client`", async () => {
    const fresh = new StandIns(["kubectl"])
    await fresh.executor.ensureReady()
    expect(fresh.toolset("kubernetes/core").status).toBe("enabled")
    expect(fresh.calls()).toContainEqual(["kubectl", "version", "--client"])
    fresh.cleanup()
  })

  test("a missing kubectl fails the toolset with `kubectl not found on PATH`", async () => {
    const empty = mkdtempSync(join(tmpdir(), "dupin-empty-path-"))
    const none = new StandIns([], { pathDirs: [empty] })
    await none.executor.ensureReady()
    const core = none.toolset("kubernetes/core")
    expect(core.status).toBe("failed")
    expect(core.error).toBe("kubectl not found on PATH")
    const result = await none.call("kubectl_describe", { kind: "pod", name: "x" })
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toBe(
      "kubectl_describe was not run: toolset kubernetes/core is unavailable (kubectl not found on PATH).",
    )
    none.cleanup()
  })
})

describe("kubernetes/core argv", () => {
  test("kubectl_describe, with and without a namespace; the output is the result", async () => {
    k.respond("kubectl", lines("Name:         web-1", "Status:       Running"))
    const r = await k.call("kubectl_describe", { kind: "pod", name: "web-1", namespace: "shop" })
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    expect(r.data).toBe("Name:         web-1\nStatus:       Running\n")
    await k.call("kubectl_describe", { kind: "nodes", name: "node-a" })
    expect(k.calls()).toEqual([
      ["kubectl", "describe", "pod", "web-1", "--namespace", "shop"],
      ["kubectl", "describe", "nodes", "node-a"],
    ])
  })

  test("kubectl_get_by_name, kubectl_get_by_kind_in_namespace, kubectl_get_by_kind_in_cluster", async () => {
    k.respond("kubectl", PODS_TABLE)
    await k.call("kubectl_get_by_name", { kind: "deployments.apps", name: "web", namespace: "shop" })
    await k.call("kubectl_get_by_name", { kind: "clusterroles", name: "system:controller:job-controller" })
    await k.call("kubectl_get_by_kind_in_namespace", { kind: "pods", namespace: "kube-system" })
    const all = await k.call("kubectl_get_by_kind_in_cluster", { kind: "pods" })
    expect(all.data).toBe(PODS_TABLE)
    expect(k.calls()).toEqual([
      ["kubectl", "get", "deployments.apps", "web", "--namespace", "shop", "--show-labels", "-o", "wide"],
      ["kubectl", "get", "clusterroles", "system:controller:job-controller", "--show-labels", "-o", "wide"],
      ["kubectl", "get", "pods", "--namespace", "kube-system", "--show-labels", "-o", "wide"],
      ["kubectl", "get", "pods", "--all-namespaces", "--show-labels", "-o", "wide"],
    ])
  })

  test("kubectl_get_yaml", async () => {
    k.respond("kubectl", lines("apiVersion: v1", "kind: Pod"))
    const r = await k.call("kubectl_get_yaml", { kind: "pod", name: "web-1", namespace: "shop" })
    expect(r.data).toBe("apiVersion: v1\nkind: Pod\n")
    await k.call("kubectl_get_yaml", { kind: "node", name: "node-a" })
    expect(k.calls()).toEqual([
      ["kubectl", "get", "pod", "web-1", "--namespace", "shop", "-o", "yaml"],
      ["kubectl", "get", "node", "node-a", "-o", "yaml"],
    ])
  })

  test("kubectl_events for a namespace, for a pod by default, for another kind", async () => {
    k.respond(
      "kubectl",
      lines(
        "LAST SEEN   TYPE      REASON    OBJECT      MESSAGE",
        "2m   Warning   BackOff   pod/web-1   Back-off",
      ),
    )
    const r = await k.call("kubectl_events", { namespace: "shop" })
    expect(r.data).toContain("BackOff")
    await k.call("kubectl_events", { namespace: "shop", name: "web-1" })
    await k.call("kubectl_events", { namespace: "shop", name: "web", kind: "deployment" })
    expect(k.calls()).toEqual([
      ["kubectl", "events", "--namespace", "shop"],
      ["kubectl", "events", "--namespace", "shop", "--for", "pod/web-1"],
      ["kubectl", "events", "--namespace", "shop", "--for", "deployment/web"],
    ])
  })

  test("kubectl_find_resource keeps the header and the matching rows, case-insensitively", async () => {
    k.respond("kubectl", PODS_TABLE)
    const r = await k.call("kubectl_find_resource", { kind: "pods", keyword: "crashloop" })
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    const [header, , checkout] = PODS_TABLE.split("\n")
    expect(r.data).toBe(`${header}\n${checkout}\n`)
    const none = await k.call("kubectl_find_resource", { kind: "pods", keyword: "payments" })
    expect(none.data).toBe(`${header}\nNo pods row contains "payments".\n`)
    expect(k.calls()).toEqual([
      ["kubectl", "get", "pods", "--all-namespaces", "--show-labels", "-o", "wide"],
      ["kubectl", "get", "pods", "--all-namespaces", "--show-labels", "-o", "wide"],
    ])
  })

  test("kubernetes_jq_query runs the expression over `get -o json` of all namespaces", async () => {
    k.respond("kubectl", PODS_JSON)
    const r = await k.call("kubernetes_jq_query", {
      kind: "pods",
      jq_expr: '.items[] | select(.status.phase != "Running") | .metadata.name',
    })
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    expect(r.data).toBe('"checkout-2"\n"batch-3"\n')
    expect(k.calls()).toEqual([["kubectl", "get", "pods", "--all-namespaces", "-o", "json"]])
  })

  test("kubernetes_count counts the matches and previews them", async () => {
    k.respond("kubectl", PODS_JSON)
    const r = await k.call("kubernetes_count", {
      kind: "pods",
      jq_expr: '.items[] | select(.status.phase == "Pending") | .metadata.name',
    })
    expect(r.data).toBe('total_items: 3\nmatches_found: 2\npreview:\n"checkout-2"\n"batch-3"\n')
    const none = await k.call("kubernetes_count", { kind: "pods", jq_expr: ".items[] | select(.x == 1)" })
    expect(none.data).toBe("total_items: 3\nmatches_found: 0\n")
    expect(k.calls()).toEqual([
      ["kubectl", "get", "pods", "--all-namespaces", "-o", "json"],
      ["kubectl", "get", "pods", "--all-namespaces", "-o", "json"],
    ])
  })

  test("a kubectl failure is an error result with kubectl's message, and jq never runs on nothing", async () => {
    k.respond("kubectl", "", { exitCode: 1, stderr: 'Error from server (NotFound): pods "nope" not found\n' })
    const r = await k.call("kubectl_describe", { kind: "pod", name: "nope", namespace: "shop" })
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.returnCode).toBe(1)
    expect(r.error).toContain('pods "nope" not found')
    const q = await k.call("kubernetes_jq_query", { kind: "widgets", jq_expr: ".items[]" })
    expect(q.status).toBe(ToolResultStatus.ERROR)
    expect(q.data).toBe('Error from server (NotFound): pods "nope" not found\n')
  })
})

describe("kubernetes/core never reads Secrets", () => {
  const refused = [
    "secret",
    "secrets",
    "Secret",
    "SECRETS",
    "sEcReTs",
    "secret.v1",
    "secrets.v1.",
    "Secrets.v1",
    "all",
    "ALL",
  ]

  test.each(refused)("kind %p is refused by every tool before kubectl runs", async (kind) => {
    for (const [tool, args] of KIND_TOOLS) {
      const r = await k.call(tool, { ...args, kind })
      expect(r.status).toBe(ToolResultStatus.ERROR)
      expect(r.error).toStartWith(`Invalid arguments for ${tool}: /kind: `)
    }
    expect(k.calls()).toEqual([])
  })

  test("lists and type/name forms that would smuggle a Secret in are refused too", async () => {
    for (const kind of ["pods,secrets", "secret/db-password", "pods secrets", "-o=yaml"]) {
      const r = await k.call("kubectl_get_by_kind_in_cluster", { kind })
      expect(r.error).toStartWith("Invalid arguments for kubectl_get_by_kind_in_cluster: /kind: ")
    }
    expect(k.calls()).toEqual([])
  })

  test("kinds that merely start with `secret` are other resources and allowed", async () => {
    await k.call("kubectl_get_by_kind_in_cluster", { kind: "secretstores.external-secrets.io" })
    await k.call("kubectl_get_by_kind_in_cluster", { kind: "sealedsecrets" })
    expect(k.calls().map((c) => c[2])).toEqual(["secretstores.external-secrets.io", "sealedsecrets"])
  })

  test("the model is told in the schema", () => {
    const schema = k.executor.toolsByName.kubectl_describe!.toSchema()
    const kind = (schema.function.parameters as { properties: { kind: { description: string } } }).properties
      .kind
    expect(kind.description).toContain(
      "Secrets (secret, secrets, secrets.v1, any case) and `all` are refused",
    )
    expect(k.toolset("kubernetes/core").llmInstructions).toContain("Secrets can never be read")
  })
})

describe("kubernetes/core injection", () => {
  test("shell syntax in names and namespaces is refused by the patterns and never runs", async () => {
    const mark = k.marker("ns")
    for (const [tool, args] of [
      ["kubectl_get_by_kind_in_namespace", { kind: "pods", namespace: `default; touch ${mark}` }],
      ["kubectl_describe", { kind: "pod", name: "$(id)", namespace: "default" }],
      ["kubectl_describe", { kind: "pod", name: `x\`touch ${mark}\`` }],
      ["kubectl_events", { namespace: "default", name: "web", kind: "pod;id" }],
      ["kubectl_get_yaml", { kind: "pod", name: "--kubeconfig=/tmp/evil" }],
    ] as const) {
      const r = await k.call(tool, args)
      expect(r.status).toBe(ToolResultStatus.ERROR)
      expect(r.error).toStartWith(`Invalid arguments for ${tool}: `)
    }
    expect(k.calls()).toEqual([])
    expect(existsSync(mark)).toBe(false)
  })

  test("a keyword is literal text for grep: shell syntax matches itself and runs nothing", async () => {
    k.respond("kubectl", PODS_TABLE)
    const mark = k.marker("keyword")
    const r = await k.call("kubectl_find_resource", { kind: "pods", keyword: "$(touch x)" })
    expect(r.data).toContain("ops         $(touch x)    1/1")
    const s = await k.call("kubectl_find_resource", { kind: "pods", keyword: `web; touch ${mark}` })
    expect(s.data).toContain(`No pods row contains "web; touch ${mark}".`)
    expect(existsSync(mark)).toBe(false)
    expect(existsSync("x")).toBe(false)
    const dash = await k.call("kubectl_find_resource", { kind: "pods", keyword: "--help" })
    expect(dash.error).toContain('starts with "-"')
  })

  test("a jq expression reaches jq as one argv element, exactly as written", async () => {
    const withJq = new StandIns(["kubectl", "jq"])
    await withJq.executor.ensureReady()
    withJq.reset()
    withJq.respond("kubectl", PODS_JSON)
    const mark = withJq.marker("jq")
    const expr = `.items[] | select(.metadata.name == "$(touch ${mark})") ; touch ${mark} '"`
    // Outside the jq grammar, so it runs only approved; approved, it must still be one argv element.
    await callApproved(withJq, "kubernetes_jq_query", { kind: "pods", jq_expr: expr })
    expect(withJq.calls()).toEqual([
      ["kubectl", "get", "pods", "--all-namespaces", "-o", "json"],
      ["jq", "-c", expr],
    ])
    expect(existsSync(mark)).toBe(false)
    withJq.cleanup()
  })
})

describe("kubernetes/core checks jq_expr with dupin's jq grammar", () => {
  // The red team read registry credentials with this filter through kubernetes_jq_query.
  const IMPORT = 'import "config" as $c {search: "~/.docker"}; $c'
  const DOCKER_SECRET = "registry-auth-5e1f0c"
  const docker = join(process.env.HOME ?? "", ".docker")

  beforeAll(() => {
    mkdirSync(docker, { recursive: true })
    writeFileSync(join(docker, "config.json"), JSON.stringify({ auths: { r: { auth: DOCKER_SECRET } } }))
  })
  afterAll(() => rmSync(docker, { recursive: true, force: true }))

  for (const tool of ["kubernetes_jq_query", "kubernetes_count"]) {
    test(`${tool}: the module import needs approval and reads nothing without it`, async () => {
      k.respond("kubectl", PODS_JSON)
      const args = { kind: "pods", jq_expr: IMPORT }
      expect(approvalReason(tool, args)).toContain("import")
      const r = await k.call(tool, args)
      expect(r.status).toBe(ToolResultStatus.APPROVAL_REQUIRED)
      expect(JSON.stringify(r)).not.toContain(DOCKER_SECRET)
      expect(k.calls()).toEqual([])
    })

    for (const expr of ["$ENV.HOME", "env.PATH", '"\\(env)"', "$ # c\nENV"]) {
      test(`${tool}: ${JSON.stringify(expr)} is refused even approved`, async () => {
        k.respond("kubectl", PODS_JSON)
        const args = { kind: "pods", jq_expr: expr }
        expect(approvalReason(tool, args)).toBeUndefined()
        const r = await callApproved(k, tool, args)
        expect(r.status).toBe(ToolResultStatus.ERROR)
        expect(r.error).toContain("environment")
        expect(k.calls()).toEqual([])
      })
    }

    test(`${tool}: an ordinary filter runs without approval`, async () => {
      k.respond("kubectl", PODS_JSON)
      const args = { kind: "pods", jq_expr: '.items[] | select(.status.phase == "Pending") | .metadata.name' }
      expect(approvalReason(tool, args)).toBeUndefined()
      const r = await k.call(tool, args)
      expect(r.status).toBe(ToolResultStatus.SUCCESS)
      expect(r.data).toContain('"checkout-2"')
    })
  }
})
