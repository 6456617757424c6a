/**
 * deploy/kubernetes/ is checked by a real schema validator, not by eye: `kubectl kustomize` renders
 * the base and each overlay as kubectl would apply them, and every object is validated against the
 * Kubernetes API's own OpenAPI schemas (kubernetes-models: the types, required fields, enums and
 * formats of each kind, bundled with the package so the check needs no network). The config file
 * the ConfigMap carries is loaded by dupin's own config loader, so a key dupin does not know fails.
 */
import { describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Deployment } from "kubernetes-models/apps/v1"
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2"
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1"
import { PodDisruptionBudget } from "kubernetes-models/policy/v1"
import { ClusterRole, ClusterRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1"
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from "kubernetes-models/v1"
import { parseAllDocuments } from "yaml"
import { Config } from "../../src/config/config.ts"

const ROOT = resolve(import.meta.dir, "../../deploy/kubernetes")
type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown }
type Validating = new (data: never) => { validate(): void }

/** Every kind the manifests use, with the schema it must satisfy; an unknown kind fails. */
const MODELS: Record<string, Validating> = {
  "v1/Namespace": Namespace,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/ConfigMap": ConfigMap,
  "v1/ServiceAccount": ServiceAccount,
  "apps/v1/Deployment": Deployment,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "rbac.authorization.k8s.io/v1/ClusterRole": ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": ClusterRoleBinding,
}

function render(dir: string): Manifest[] {
  const run = Bun.spawnSync(["kubectl", "kustomize", join(ROOT, dir)], { stderr: "pipe" })
  if (run.exitCode !== 0) throw new Error(`kubectl kustomize ${dir}: ${run.stderr.toString()}`)
  return parseAllDocuments(run.stdout.toString()).map((d) => d.toJSON() as Manifest)
}

function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`]
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`)
  new Model(manifest as never).validate()
}

const byKind = (all: Manifest[], kind: string) => all.filter((m) => m.kind === kind)

type Container = {
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean }
  readinessProbe: { httpGet: { path: string } }
  livenessProbe: { httpGet: { path: string } }
  lifecycle?: { preStop?: unknown }
  volumeMounts: Array<{ name: string; mountPath: string }>
}
type PodSpec = {
  terminationGracePeriodSeconds: number
  securityContext: { runAsNonRoot: boolean }
  containers: Container[]
  volumes: Array<{ name: string; emptyDir?: unknown }>
}

/** The config file in the ConfigMap, loaded as `dupin serve` would with the Secret's variables set. */
function loadShippedConfig(all: Manifest[]): Config {
  const map = byKind(all, "ConfigMap")[0] as unknown as { data: Record<string, string> }
  const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "dupin-k8s-"))
  try {
    const file = join(dir, "config.yaml")
    writeFileSync(file, map.data["config.yaml"] ?? "")
    const env = {
      SVC_AUTH_TOKEN: "t",
      SVC_APPROVAL_SECRET: "s",
      OPENAI_API_KEY: "k",
      DUPIN_STORE_URL: "postgres://dupin@127.0.0.1:5432/dupin",
      SLACK_WEBHOOK_URL: "http://127.0.0.1:9/slack",
      HOME: dir,
    }
    return Config.loadFromFile(file, { env })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

for (const dir of ["base", "overlays/alerts"]) {
  describe(`deploy/kubernetes/${dir}`, () => {
    const all = render(dir)

    test("every object is valid against the Kubernetes API schema of its kind", () => {
      expect(all.length).toBeGreaterThanOrEqual(10)
      for (const manifest of all) {
        try {
          validate(manifest)
        } catch (error) {
          throw new Error(`${manifest.kind} ${manifest.metadata.name}: ${error}`)
        }
      }
    })

    test("the Deployment drains before it is killed, runs non-root on a read-only root, probes both endpoints", () => {
      const [deployment] = byKind(all, "Deployment") as unknown as Array<{
        spec: { replicas: number; template: { spec: PodSpec } }
      }>
      const pod = deployment?.spec.template.spec as PodSpec
      const [container] = pod.containers
      const config = loadShippedConfig(all)
      // Lame duck, then the 30 s grace for running chats, must end before the kubelet's SIGKILL.
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(config.server.drainDelay + 30)
      expect(pod.securityContext.runAsNonRoot).toBe(true)
      expect(container?.securityContext.readOnlyRootFilesystem).toBe(true)
      expect(container?.securityContext.allowPrivilegeEscalation).toBe(false)
      expect(container?.readinessProbe.httpGet.path).toBe("/readyz")
      expect(container?.livenessProbe.httpGet.path).toBe("/healthz")
      expect(container?.lifecycle?.preStop).toBeDefined()
      const tmp = container?.volumeMounts.find((m) => m.mountPath === "/tmp")
      expect(pod.volumes.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined()
      expect(deployment?.spec.replicas).toBe(2)
    })

    test("the config file it ships loads in dupin and listens beyond loopback with a token", () => {
      const config = loadShippedConfig(all)
      expect(config.server.host).toBe("0.0.0.0")
      expect(config.server.authToken).toBe("t")
      expect(config.server.approvalSecret).toBe("s")
    })
  })
}

test("the validator refuses a wrong manifest (guard: the check is not a no-op)", () => {
  const [deployment] = byKind(render("base"), "Deployment")
  const broken = structuredClone(deployment) as Manifest & { spec: Record<string, unknown> }
  broken.spec.replicas = "two"
  expect(() => validate(broken)).toThrow("replicas")
  expect(() => validate({ ...broken, kind: "Dployment" })).toThrow("no schema")
})
