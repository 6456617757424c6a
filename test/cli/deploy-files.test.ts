import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import type { TObject, TSchema } from "@sinclair/typebox"
import { parseAllDocuments } from "yaml"
import { ConfigFileSchema } from "../../src/config/schema.ts"
import { Config } from "../../src/core/config.ts"

const DEPLOY = join(import.meta.dir, "../../deploy")
const EXAMPLE = join(DEPLOY, "config.example.yaml")
const ENV = { OPENAI_API_KEY: "sk-test", SVC_AUTH_TOKEN: "token", SVC_APPROVAL_SECRET: "secret" }

/** Every key path of an object schema, descending into nested objects and record values. */
function keyPaths(schema: TSchema, prefix = ""): string[] {
  const props = (schema as TObject).properties
  if (props) {
    return Object.entries(props).flatMap(([key, value]) => [
      `${prefix}${key}`,
      ...keyPaths(value, `${prefix}${key}.`),
    ])
  }
  const patterns = (schema as { patternProperties?: Record<string, TSchema> }).patternProperties
  const record = patterns ? Object.values(patterns)[0] : undefined
  if (record) return keyPaths(record, `${prefix}*.`)
  const items = (schema as { items?: TSchema }).items
  return items ? keyPaths(items, `${prefix}[].`) : []
}

describe("deploy/config.example.yaml", () => {
  test("loads with Config.loadFromFile, and its toolsets and models build", () => {
    const config = Config.loadFromFile(EXAMPLE, { env: ENV })
    expect(config.model).toBe("fast")
    expect(config.modelNames()).toEqual(["fast", "accurate"])
    expect(config.server).toMatchObject({
      host: "127.0.0.1",
      port: 5050,
      authToken: "token",
      approvalSecret: "secret",
    })
    expect(config.followUpActions.map((a) => a.id)).toEqual(["logs", "fix"])
    expect(config.createModel("fast").info.id).toBe("openai/gpt-4.1-mini")
    const names = config.toolExecutor().toolsets.map((t) => t.name)
    expect(names).toContain("kubernetes/core")
    expect(config.toolExecutor().toolsets.find((t) => t.name === "docker/core")?.enabled).toBe(false)
  })

  test("shows every key of the config file schema", async () => {
    const text = await Bun.file(EXAMPLE).text()
    const value = (await import("yaml")).parse(text)
    const present = new Set<string>()
    const walk = (node: unknown, prefix: string, schemaPath: string) => {
      if (!node || typeof node !== "object") return
      for (const [key, child] of Object.entries(node)) {
        const isRecord =
          schemaPath === "modelList" || schemaPath === "toolsets" || schemaPath === "mcp_servers"
        const path = isRecord ? `${schemaPath}.*` : `${prefix}${key}`
        if (schemaPath !== "toolsets") present.add(path)
        if (Array.isArray(child)) for (const item of child) walk(item, `${path}.[].`, `${path}.[]`)
        else walk(child, `${path}.`, path)
      }
    }
    walk(value, "", "")
    const missing = keyPaths(ConfigFileSchema).filter(
      (path) => !path.startsWith("toolsets.") && !present.has(path),
    )
    expect(missing).toEqual([])
  })
})

describe("deploy/rbac.yaml", () => {
  test("read-only ClusterRole without Secrets, bound to the dupin ServiceAccount", async () => {
    const docs = parseAllDocuments(await Bun.file(join(DEPLOY, "rbac.yaml")).text()).map((d) => d.toJS())
    const kinds = docs.map((d) => d.kind)
    expect(kinds).toEqual(expect.arrayContaining(["ServiceAccount", "ClusterRole", "ClusterRoleBinding"]))
    const role = docs.find((d) => d.kind === "ClusterRole")
    const rules: Array<{ resources: string[]; verbs: string[] }> = role.rules
    for (const rule of rules) {
      expect(rule.verbs.every((v) => ["get", "list", "watch"].includes(v))).toBe(true)
      expect(rule.resources.some((r) => r === "*" || r.startsWith("secrets"))).toBe(false)
    }
    expect(rules.flatMap((r) => r.resources)).toContain("pods/log")
    const binding = docs.find((d) => d.kind === "ClusterRoleBinding")
    expect(binding.roleRef.name).toBe(role.metadata.name)
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "dupin", namespace: "dupin" }])
  })
})

describe("deploy/dupin.service", () => {
  test("runs serve as the dupin user with the hardening the guide promises", async () => {
    const unit = await Bun.file(join(DEPLOY, "dupin.service")).text()
    const settings = unit.split("\n").filter((l) => /^[A-Za-z]+=/.test(l))
    for (const line of [
      "User=dupin",
      "SupplementaryGroups=systemd-journal",
      "ExecStart=/usr/local/bin/dupin serve --config /etc/dupin/config.yaml",
      "EnvironmentFile=/etc/dupin/env",
      "Environment=KUBECONFIG=/etc/dupin/kubeconfig",
      "ProtectSystem=strict",
      "ProtectHome=true",
      "NoNewPrivileges=true",
      "PrivateTmp=true",
      "Restart=on-failure",
      "CapabilityBoundingSet=",
      "SystemCallFilter=@system-service",
    ]) {
      expect(settings).toContain(line)
    }
    // Bun's JIT needs W+X memory: this setting would crash the service at start.
    expect(settings.some((l) => l.startsWith("MemoryDenyWriteExecute="))).toBe(false)
  })

  test("lets dupin sandbox its tools, and bounds every task of the service", async () => {
    const unit = await Bun.file(join(DEPLOY, "dupin.service")).text()
    const settings = unit.split("\n").filter((l) => /^[A-Za-z]+=/.test(l))
    // bubblewrap needs exactly these namespaces and the mount syscalls; nothing else is opened.
    expect(settings).toContain("RestrictNamespaces=user mnt pid ipc")
    expect(settings).toContain("SystemCallFilter=@mount")
    expect(settings).toContain("TasksMax=2048")
  })

  test("the env file is root's alone, in the unit's notes and in the guide", async () => {
    const unit = await Bun.file(join(DEPLOY, "dupin.service")).text()
    expect(unit).toContain("(root:root, mode 0600")
    const readme = await Bun.file(join(DEPLOY, "../README.md")).text()
    expect(readme).toContain("sudo install -m 0600 -o root -g root /dev/null /etc/dupin/env")
    // Nothing in the guide reads the env file as the dupin user any more.
    expect(readme).not.toMatch(/sudo -u dupin[^\n]*\/etc\/dupin\/env/)
  })

  test.skipIf(!Bun.which("systemd-analyze"))("systemd-analyze security still rates it OK", () => {
    const run = Bun.spawnSync(["systemd-analyze", "security", "--offline=yes", join(DEPLOY, "dupin.service")])
    const overall = /Overall exposure level for dupin\.service: ([\d.]+) (\w+)/.exec(run.stdout.toString())
    expect(overall?.[2]).toBe("OK")
    // 1.9 before tools were sandboxed; the namespaces and @mount bubblewrap needs cost 0.5.
    expect(Number(overall?.[1])).toBeLessThanOrEqual(2.4)
  })
})

// Issue 21 item 9: small things an operator tripped over.
describe("deploy and packaging files", () => {
  const ROOT = join(import.meta.dir, "../..")

  test("every docs/ page the deploy files point at exists", async () => {
    for (const name of ["dupin.service", "rbac.yaml", "config.example.yaml"]) {
      const text = await Bun.file(join(DEPLOY, name)).text()
      for (const [page] of text.matchAll(/docs\/[\w.-]+\.md/g)) {
        expect(await Bun.file(join(ROOT, page)).exists(), `${name} names ${page}`).toBe(true)
      }
    }
  })

  test("a packed tarball is ignored by git", () => {
    const check = Bun.spawnSync(["git", "check-ignore", "-q", "dupin-0.1.0.tgz"], { cwd: ROOT })
    expect(check.exitCode).toBe(0)
  })

  test("the README never installs from a bare checkout folder (Bun copies dist/ with it)", async () => {
    const readme = await Bun.file(join(ROOT, "README.md")).text()
    const commands = readme.split("\n").filter((line) => line.startsWith("bun add "))
    expect(
      commands.filter((line) => /^bun add \/path\/to\/dupin(?!\/dupin-[\d.]+\.tgz)\b/.test(line)),
    ).toEqual([])
  })
})
