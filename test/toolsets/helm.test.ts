import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ToolResultStatus } from "../../src/tool/result.ts"
import { lines, StandIns } from "./stand-ins.ts"

const MANIFEST = lines(
  "---",
  "# Source: shop/templates/secret.yaml",
  "apiVersion: v1",
  "kind: Secret",
  "metadata:",
  "  name: shop-db",
  "data:",
  "  password: aHVudGVyMg==",
  "---",
  "# Source: shop/templates/deployment.yaml",
  "apiVersion: apps/v1",
  "kind: Deployment",
  "metadata:",
  "  name: shop",
  "spec:",
  "  template:",
  "    spec:",
  "      containers:",
  "        - name: app",
  "          env:",
  "            - name: DB_PASSWORD",
  "              valueFrom: {secretKeyRef: {name: shop-db, key: password}}",
  "---",
  "# Source: shop/templates/list.yaml",
  "apiVersion: v1",
  "kind: List",
  "items:",
  "  - apiVersion: v1",
  '    kind: "Secret"',
  "    stringData: {token: s3cr3t-token}",
  "---",
  "# Source: shop/templates/json.yaml",
  '{"apiVersion":"v1","kind":"Secret","data":{"k":"c2VjcmV0LWpzb24="}}',
  "---",
  "# Source: shop/templates/tagged.yaml",
  "kind: !!str Secret",
  "data: {k: dGFnZ2Vk}",
  "---",
  "# Source: shop/templates/store.yaml",
  "apiVersion: external-secrets.io/v1beta1",
  "kind: SecretStore",
  "metadata:",
  "  name: vault",
)

let h: StandIns

beforeAll(async () => {
  h = new StandIns(["helm"])
  await h.executor.ensureReady()
})
afterAll(() => h.cleanup())
beforeEach(() => h.reset())

describe("helm/core", () => {
  test("enabled when `helm version --short` answers; failed when helm is missing", async () => {
    expect(h.toolset("helm/core").status).toBe("enabled")
    const none = new StandIns([], { pathDirs: [mkdtempSync(join(tmpdir(), "dupin-empty-path-"))] })
    await none.executor.ensureReady()
    expect(none.toolset("helm/core").status).toBe("failed")
    expect(none.toolset("helm/core").error).toBe("helm not found on PATH")
    none.cleanup()
  })

  test("helm_list: every state, all namespaces unless one is given", async () => {
    const list = lines(
      "NAME   NAMESPACE   REVISION   STATUS   CHART",
      "shop   shop        7          failed   shop-1.2.0",
    )
    h.respond("helm", list)
    expect((await h.call("helm_list", {})).data).toBe(list)
    await h.call("helm_list", { namespace: "shop" })
    expect(h.calls()).toEqual([
      ["helm", "list", "--all", "--all-namespaces", "--max", "1000"],
      ["helm", "list", "--all", "--namespace", "shop", "--max", "1000"],
    ])
  })

  test("helm_status and helm_history", async () => {
    h.respond("helm", lines("NAME: shop", "STATUS: failed"))
    expect((await h.call("helm_status", { release: "shop", namespace: "shop" })).data).toContain(
      "STATUS: failed",
    )
    await h.call("helm_history", { release: "shop", namespace: "shop" })
    await h.call("helm_history", { release: "shop", namespace: "shop", max: 5 })
    expect(h.calls()).toEqual([
      ["helm", "status", "shop", "--namespace", "shop"],
      ["helm", "history", "shop", "--namespace", "shop", "--max", "20"],
      ["helm", "history", "shop", "--namespace", "shop", "--max", "5"],
    ])
  })

  test("helm_values: user values by default, --all and --revision when asked", async () => {
    h.respond("helm", lines("USER-SUPPLIED VALUES:", "replicas: 3"))
    expect((await h.call("helm_values", { release: "shop", namespace: "shop" })).data).toContain(
      "replicas: 3",
    )
    await h.call("helm_values", { release: "shop", namespace: "shop", all: true, revision: 6 })
    expect(h.calls()).toEqual([
      ["helm", "get", "values", "shop", "--namespace", "shop"],
      ["helm", "get", "values", "shop", "--namespace", "shop", "--all", "--revision", "6"],
    ])
  })

  test("helm_manifest leaves every Secret document out and keeps the rest intact", async () => {
    h.respond("helm", MANIFEST)
    const r = await h.call("helm_manifest", { release: "shop", namespace: "shop", revision: 3 })
    expect(r.status).toBe(ToolResultStatus.SUCCESS)
    const text = r.dataText()
    for (const secret of ["aHVudGVyMg==", "s3cr3t-token", "c2VjcmV0LWpzb24=", "dGFnZ2Vk"]) {
      expect(text).not.toContain(secret)
    }
    const note = "# dupin: a Secret document was left out here (Secret data are never shown)"
    for (const source of ["secret.yaml", "list.yaml", "json.yaml", "tagged.yaml"]) {
      expect(text).toContain(`---\n# Source: shop/templates/${source}\n${note}\n`)
    }
    const deployment = MANIFEST.slice(MANIFEST.indexOf("---\n# Source: shop/templates/deployment.yaml"))
    expect(text).toContain(deployment.slice(0, deployment.indexOf("---", 3)))
    expect(text).toEndWith("kind: SecretStore\nmetadata:\n  name: vault\n")
    expect(h.calls()).toEqual([["helm", "get", "manifest", "shop", "--namespace", "shop", "--revision", "3"]])
  })

  test("a helm failure is an error even though the output goes through the filter", async () => {
    h.respond("helm", "", { exitCode: 1, stderr: "Error: release: not found\n" })
    const r = await h.call("helm_manifest", { release: "gone", namespace: "shop" })
    expect(r.status).toBe(ToolResultStatus.ERROR)
    expect(r.error).toContain("Error: release: not found")
  })

  test("release and namespace values are pattern-checked and never run", async () => {
    const mark = h.marker("helm")
    for (const [tool, args] of [
      ["helm_status", { release: `shop; touch ${mark}`, namespace: "shop" }],
      ["helm_values", { release: "$(id)", namespace: "shop" }],
      ["helm_manifest", { release: "shop", namespace: "--kube-context=prod" }],
      ["helm_list", { namespace: "a b" }],
    ] as const) {
      expect((await h.call(tool, args)).status).toBe(ToolResultStatus.ERROR)
    }
    expect(h.calls()).toEqual([])
    expect(existsSync(mark)).toBe(false)
  })
})
