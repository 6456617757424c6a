/**
 * Writes kubernetes.json here: the definitions of the Kubernetes API's OpenAPI (swagger 2.0) spec
 * that the kinds in deploy/kubernetes/ use, with every definition they reference, descriptions
 * dropped (types, required fields, enums and formats stay as the spec has them). The manifests are
 * validated against it offline (test/deploy/kubernetes.test.ts), so neither CI nor a developer
 * fetches a schema. Run it again with a newer spec (api/openapi-spec/swagger.json of the
 * Kubernetes release you target) when the manifests use another kind or a newer field:
 *
 *   bun deploy/kubernetes/schemas/vendor.ts path/to/swagger.json 1.36
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"

/** group/version/kind of every object the base and the overlays render. */
export const KINDS = [
  ["", "v1", "Namespace"],
  ["", "v1", "Secret"],
  ["", "v1", "Service"],
  ["", "v1", "ConfigMap"],
  ["", "v1", "ServiceAccount"],
  ["apps", "v1", "Deployment"],
  ["autoscaling", "v2", "HorizontalPodAutoscaler"],
  ["policy", "v1", "PodDisruptionBudget"],
  ["networking.k8s.io", "v1", "NetworkPolicy"],
  ["rbac.authorization.k8s.io", "v1", "ClusterRole"],
  ["rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"],
] as const

type Definition = Record<string, unknown> & {
  "x-kubernetes-group-version-kind"?: Array<{ group: string; version: string; kind: string }>
}

function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions)
  if (value === null || typeof value !== "object") return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (key !== "description") out[key] = withoutDescriptions(item)
  }
  return out
}

function refsOf(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) refsOf(item, into)
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") into.add(item.replace("#/definitions/", ""))
      else refsOf(item, into)
    }
  }
}

if (import.meta.main) {
  const [specPath, version] = Bun.argv.slice(2)
  if (!specPath || !version) throw new Error("usage: bun vendor.ts SWAGGER_JSON KUBERNETES_VERSION")
  const spec = (await Bun.file(specPath).json()) as { definitions: Record<string, Definition> }
  const kinds: Record<string, string> = {}
  for (const [group, apiVersion, kind] of KINDS) {
    const name = Object.keys(spec.definitions).find((key) =>
      spec.definitions[key]?.["x-kubernetes-group-version-kind"]?.some(
        (gvk) => gvk.group === group && gvk.version === apiVersion && gvk.kind === kind,
      ),
    )
    if (!name) throw new Error(`no definition for ${group}/${apiVersion} ${kind}`)
    kinds[`${group ? `${group}/` : ""}${apiVersion}/${kind}`] = name
  }
  const wanted = new Set(Object.values(kinds))
  for (const seen = new Set<string>(); seen.size < wanted.size; ) {
    for (const name of wanted) {
      if (seen.has(name)) continue
      seen.add(name)
      refsOf(spec.definitions[name], wanted)
    }
  }
  const definitions: Record<string, unknown> = {}
  for (const name of [...wanted].sort()) definitions[name] = withoutDescriptions(spec.definitions[name])
  const out = { kubernetes: version, kinds, definitions }
  writeFileSync(join(import.meta.dir, "kubernetes.json"), `${JSON.stringify(out, null, 1)}\n`)
  console.log(`${Object.keys(kinds).length} kinds, ${wanted.size} definitions`)
}
