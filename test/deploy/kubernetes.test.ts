/**
 * deploy/kubernetes/ is checked by a real schema validator, not by eye: `kubectl kustomize` renders
 * the base and each overlay as kubectl would apply them, and every object is validated against the
 * Kubernetes API's own OpenAPI definitions, vendored in deploy/kubernetes/schemas/ (no network),
 * strict like `kubeconform -strict`: unknown fields, wrong types, missing required fields and
 * unknown kinds fail (kube-schema.ts). The config file the ConfigMap carries is loaded by dupin's
 * own config loader, so a key dupin does not know fails too.
 */
import { describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import { parseAllDocuments } from "yaml"
import { Config } from "../../src/config/config.ts"
import { requireServerSecrets } from "../../src/config/settings.ts"
import { DEFAULT_SHUTDOWN_GRACE_MS } from "../../src/server/server.ts"
import { type Manifest, validateManifest as validate } from "./kube-schema.ts"

const ROOT = resolve(import.meta.dir, "../../deploy/kubernetes")

function render(dir: string): Manifest[] {
  const run = Bun.spawnSync(["kubectl", "kustomize", resolve(ROOT, dir)], { stderr: "pipe" })
  if (run.exitCode !== 0) throw new Error(`kubectl kustomize ${dir}: ${run.stderr.toString()}`)
  return parseAllDocuments(run.stdout.toString()).map((d) => d.toJSON() as Manifest)
}

const byKind = (all: Manifest[], kind: string) => all.filter((m) => m.kind === kind)

type Container = {
  securityContext: {
    readOnlyRootFilesystem: boolean
    allowPrivilegeEscalation: boolean
    capabilities: { drop?: string[]; add?: string[] }
  }
  resources: { requests: { cpu: string; memory: string }; limits: { memory: string } }
  readinessProbe: { httpGet: { path: string } }
  livenessProbe: { httpGet: { path: string } }
  lifecycle?: { preStop?: { exec?: { command?: string[] } } }
  volumeMounts: Array<{ name: string; mountPath: string }>
}
type PodSpec = {
  terminationGracePeriodSeconds: number
  securityContext: {
    runAsNonRoot: boolean
    seccompProfile?: { type: string }
    appArmorProfile?: { type: string }
  }
  containers: Container[]
  volumes: Array<{ name: string; emptyDir?: unknown }>
}

/** The config file in the ConfigMap, loaded as `dupin serve` would with the Secret's variables set. */
function loadShippedConfig(all: Manifest[], secrets: Record<string, string> = {}): Config {
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
      ...secrets,
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
      // preStop, then the drain (lame duck within the grace for running chats, then up to 5 s for
      // the ones ended to report it and 1 s to close) must end before the kubelet's SIGKILL.
      const preStop = Number(container?.lifecycle?.preStop?.exec?.command?.at(-1))
      expect(preStop).toBeGreaterThan(0)
      expect(config.server.drainDelay * 1000).toBeLessThan(DEFAULT_SHUTDOWN_GRACE_MS)
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(
        preStop + DEFAULT_SHUTDOWN_GRACE_MS / 1000 + 5 + 1,
      )
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

    test("the sandbox gets what it needs and nothing more: no capability, namespaces and mounts allowed", () => {
      const [deployment] = byKind(all, "Deployment") as unknown as Array<{
        spec: { template: { spec: PodSpec } }
      }>
      const pod = deployment?.spec.template.spec as PodSpec
      const [container] = pod.containers
      // bubblewrap as an unprivileged user: the runtime's default seccomp profile refuses unshare
      // and mount, its default AppArmor profile refuses mount (docs/kubernetes.md).
      expect(pod.securityContext.seccompProfile?.type).toBe("Unconfined")
      expect(pod.securityContext.appArmorProfile?.type).toBe("Unconfined")
      expect(container?.securityContext.capabilities.drop).toEqual(["ALL"])
      expect(container?.securityContext.capabilities.add).toBeUndefined()
      // Requests sized from the bench (test/bench/RESULTS.md: 181 MiB peak at 200 streams).
      expect(container?.resources.requests).toEqual({ cpu: "250m", memory: "256Mi" })
    })

    test("with the Secret as shipped (no values filled in) a replica refuses to serve", () => {
      const secret = byKind(all, "Secret").find((m) => m.metadata.name === "dupin") as unknown as {
        stringData: Record<string, string>
      }
      expect(Object.keys(secret.stringData).sort()).toEqual([
        "OPENAI_API_KEY",
        "SVC_APPROVAL_SECRET",
        "SVC_AUTH_TOKEN",
      ])
      // A placeholder would be a token anyone can read here; empty fails closed, naming the key.
      const config = loadShippedConfig(all, secret.stringData)
      expect(() => requireServerSecrets(config.server)).toThrow("server.auth_token is empty")
    })

    test("RBAC is read-only (the rules of deploy/rbac.yaml), bound to the pod's ServiceAccount", async () => {
      type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] }
      const role = byKind(all, "ClusterRole")[0] as unknown as { metadata: { name: string }; rules: Rule[] }
      const bastion = parseAllDocuments(await Bun.file(join(ROOT, "../rbac.yaml")).text())
        .map((d) => d.toJS() as { kind: string; rules: Rule[] })
        .find((d) => d.kind === "ClusterRole")
      expect(role.rules).toEqual(bastion?.rules as Rule[])
      for (const rule of role.rules) {
        expect(rule.verbs.filter((v) => !["get", "list", "watch"].includes(v))).toEqual([])
        expect(rule.resources.filter((r) => r === "*" || r.startsWith("secrets"))).toEqual([])
      }
      const binding = byKind(all, "ClusterRoleBinding")[0] as unknown as {
        roleRef: { name: string }
        subjects: unknown[]
      }
      const [deployment] = byKind(all, "Deployment") as unknown as Array<{
        spec: { template: { spec: { serviceAccountName: string } } }
      }>
      expect(binding.roleRef.name).toBe(role.metadata.name)
      expect(binding.subjects).toEqual([
        {
          kind: "ServiceAccount",
          name: deployment?.spec.template.spec.serviceAccountName,
          namespace: "dupin",
        },
      ])
    })

    test("Service, HPA, PDB and NetworkPolicy point at the Deployment's pods", () => {
      type Selecting = { kind: string; spec: Record<string, unknown> }
      const [deployment] = byKind(all, "Deployment") as unknown as Array<{
        metadata: { name: string }
        spec: { template: { metadata: { labels: Record<string, string> } } }
      }>
      const labels = deployment?.spec.template.metadata.labels ?? {}
      const selects = (selector: Record<string, string> | undefined) =>
        Object.keys(selector ?? {}).length > 0 &&
        Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v)
      const one = (kind: string) => byKind(all, kind)[0] as unknown as Selecting
      expect(selects(one("Service").spec.selector as Record<string, string>)).toBe(true)
      const pdb = one("PodDisruptionBudget").spec as { selector: { matchLabels: Record<string, string> } }
      expect(selects(pdb.selector.matchLabels)).toBe(true)
      const policy = one("NetworkPolicy").spec as { podSelector: { matchLabels: Record<string, string> } }
      expect(selects(policy.podSelector.matchLabels)).toBe(true)
      const hpa = one("HorizontalPodAutoscaler").spec as { scaleTargetRef: unknown }
      expect(hpa.scaleTargetRef).toEqual({
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: deployment?.metadata.name,
      })
    })

    test("the config file it ships loads in dupin and listens beyond loopback with a token", () => {
      const config = loadShippedConfig(all)
      expect(config.server.host).toBe("0.0.0.0")
      expect(config.server.authToken).toBe("t")
      expect(config.server.approvalSecret).toBe("s")
    })
  })
}

test("the alerts overlay turns on alert intake with store.url on the user's PostgreSQL, reachable through the NetworkPolicy", () => {
  const all = render("overlays/alerts")
  const config = loadShippedConfig(all)
  expect(config.alerts.enabled).toBe(true)
  expect(config.store.engine).toBe("postgres")
  // Kept as written ({{ env.DUPIN_STORE_URL }}): expanded where the store opens, from the Secret.
  expect(config.store).toMatchObject({ url: "{{ env.DUPIN_STORE_URL }}" })
  const [deployment] = byKind(all, "Deployment") as unknown as Array<{
    spec: { template: { spec: { containers: Array<{ envFrom: Array<{ secretRef: { name: string } }> }> } } }
  }>
  const secrets = deployment?.spec.template.spec.containers[0]?.envFrom.map((e) => e.secretRef.name)
  expect(secrets).toEqual(["dupin", "dupin-store"])
  const policy = byKind(all, "NetworkPolicy")[0] as unknown as {
    spec: { egress: Array<{ ports: Array<{ port: number }> }> }
  }
  expect(policy.spec.egress.flatMap((rule) => rule.ports.map((p) => p.port))).toContain(5432)
})

test("the overlay docs/kubernetes.md shows fills the Secret from an env file, over the base or the alerts overlay", () => {
  const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "dupin-k8s-mine-"))
  try {
    writeFileSync(join(dir, "secrets.env"), "OPENAI_API_KEY=k\nSVC_AUTH_TOKEN=t\nSVC_APPROVAL_SECRET=s\n")
    for (const target of ["base", "overlays/alerts"]) {
      writeFileSync(
        join(dir, "kustomization.yaml"),
        `resources: [${relative(dir, join(ROOT, target))}]
secretGenerator:
  - { name: dupin, namespace: dupin, behavior: replace, envs: [secrets.env] }
`,
      )
      const all = render(dir)
      const secrets = byKind(all, "Secret") as unknown as Array<{
        metadata: { name: string }
        data: Record<string, string>
      }>
      expect(secrets.map((s) => s.metadata.name)).toEqual(["dupin"])
      const values = Object.fromEntries(
        Object.entries(secrets[0]?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]),
      )
      expect(values).toEqual({ OPENAI_API_KEY: "k", SVC_AUTH_TOKEN: "t", SVC_APPROVAL_SECRET: "s" })
      const config = loadShippedConfig(all, values)
      expect(() => requireServerSecrets(config.server)).not.toThrow()
      for (const manifest of all) validate(manifest)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("the alerts recipe of docs/kubernetes.md makes dupin-store in the same apply, and the Deployment reads it", () => {
  const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "dupin-k8s-mine-"))
  try {
    writeFileSync(join(dir, "secrets.env"), "OPENAI_API_KEY=k\nSVC_AUTH_TOKEN=t\nSVC_APPROVAL_SECRET=s\n")
    writeFileSync(
      join(dir, "store.env"),
      "DUPIN_STORE_URL=postgres://u:p@db:5432/d\nSLACK_WEBHOOK_URL=https://h\n",
    )
    writeFileSync(
      join(dir, "kustomization.yaml"),
      `resources: [${relative(dir, join(ROOT, "overlays/alerts"))}]
secretGenerator:
  - { name: dupin, namespace: dupin, behavior: replace, envs: [secrets.env] }
  - { name: dupin-store, namespace: dupin, envs: [store.env] }
`,
    )
    const all = render(dir)
    const secrets = byKind(all, "Secret") as unknown as Array<{
      metadata: { name: string }
      data: Record<string, string>
    }>
    const store = secrets.find((s) => s.metadata.name.startsWith("dupin-store"))
    if (!store) throw new Error("no dupin-store Secret rendered")
    expect(Buffer.from(store.data.DUPIN_STORE_URL ?? "", "base64").toString()).toBe(
      "postgres://u:p@db:5432/d",
    )
    const [deployment] = byKind(all, "Deployment") as unknown as Array<{
      spec: { template: { spec: { containers: Array<{ envFrom: Array<{ secretRef: { name: string } }> }> } } }
    }>
    const refs = deployment?.spec.template.spec.containers[0]?.envFrom.map((e) => e.secretRef.name)
    // kustomize names the generated Secret with a hash suffix and rewrites the reference to match.
    expect(refs).toEqual(["dupin", store.metadata.name])
    for (const manifest of all) validate(manifest)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

describe("the validator refuses what the API would not take (guard: the check is not a no-op)", () => {
  const [deployment] = byKind(render("base"), "Deployment")
  type Broken = Manifest & {
    spec: {
      replicas: unknown
      template: {
        spec: { containers: Array<Record<string, unknown>>; securityContext: Record<string, unknown> }
      }
    }
  }
  const broken = (change: (d: Broken) => void) => {
    const copy = structuredClone(deployment) as Broken
    change(copy)
    return () => validate(copy)
  }

  test("the rendered Deployment itself passes", () => {
    expect(() => validate(deployment as Manifest)).not.toThrow()
  })

  test("a misspelt field, which the API server would drop without a word", () => {
    // Left in, the pod would run with a writable root file system.
    const typo = broken((d) => {
      const container = d.spec.template.spec.containers[0] as { securityContext: Record<string, unknown> }
      container.securityContext = { readOnlyRootFilesytem: true }
    })
    expect(typo).toThrow('"readOnlyRootFilesytem"')
    expect(broken((d) => Object.assign(d.spec, { replica: 3 }))).toThrow('"replica"')
  })

  test("a wrong type, a missing required field, an int32 out of range, an unknown kind", () => {
    expect(broken((d) => Object.assign(d.spec, { replicas: "two" }))).toThrow("/spec/replicas")
    expect(broken((d) => delete d.spec.template.spec.containers[0]?.name)).toThrow('"name"')
    expect(broken((d) => Object.assign(d.spec, { replicas: 2 ** 40 }))).toThrow("/spec/replicas")
    expect(() => validate({ ...(deployment as Manifest), kind: "Dployment" })).toThrow("no schema")
  })
})
