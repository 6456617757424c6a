import { afterAll, describe, expect, test } from "bun:test"
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BashTool } from "../../../src/toolset/bash/bash-tool.ts"
import { bashToolset } from "../../../src/toolset/bash/index.ts"

// The composition hands the tool dupin's config file, env files and KUBECONFIG entries; they must
// reach the policy through the tool's options, not only through the built-in patterns.
const dir = mkdtempSync(join(tmpdir(), "dupin-protected-"))
const config = join(dir, "dupin.yaml")
writeFileSync(config, "server:\n  auth_token: not-for-the-model\n")
symlinkSync(config, join(dir, "innocent.txt"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("protected paths given to the bash tool", () => {
  const tool = new BashTool({ cwd: dir, protectedPaths: [config] })

  test.each([`cat ${config}`, `head -n 1 ${join(dir, "innocent.txt")}`, "grep auth_token dupin.yaml"])(
    "%s is refused even approved",
    (command) => {
      expect(tool.evaluate(command).verdict?.decision).toBe("deny")
    },
  )

  test("a file beside it is an ordinary read", () => {
    writeFileSync(join(dir, "app.log"), "ok\n")
    expect(tool.evaluate(`cat ${join(dir, "app.log")}`).verdict?.decision).toBe("allow")
  })
})

// A second name for a protected file or folder: a hard link or a bind mount shows the same inode
// at a path no pattern matches. dupin compares identities (device and inode), as the kernel does.
describe("a protected file under another name", () => {
  const kube = join(dir, "kube")
  mkdirSync(kube)
  writeFileSync(join(kube, "config"), "client-key-data: CANARY-IDENTITY\n")
  const tool = new BashTool({ cwd: dir, protectedPaths: [kube] })

  test("a hard link to a file in a protected folder is refused even approved", () => {
    const other = join(dir, "readme.md")
    linkSync(join(kube, "config"), other)
    expect(readFileSync(other, "utf8")).toContain("CANARY-IDENTITY")
    expect(tool.evaluate(`cat ${other}`).verdict?.decision).toBe("deny")
    expect(tool.evaluate("tail -n 1 readme.md").verdict?.decision).toBe("deny")
    // Used as a kubeconfig, the second name is judged as the original is.
    const original = tool.evaluate(`kubectl --kubeconfig=${join(kube, "config")} get pods`).verdict?.decision
    expect(tool.evaluate(`kubectl --kubeconfig=${other} get pods`).verdict?.decision).toBe(original)
  })

  test("a file with other names dupin does not know asks a human", () => {
    const plain = join(dir, "plain.log")
    writeFileSync(plain, "ok\n")
    linkSync(plain, join(dir, "plain-2.log"))
    expect(tool.evaluate(`cat ${plain}`).verdict?.decision).toBe("approve")
  })

  test("a bind mount of a protected folder is refused (where this host lets the test mount)", () => {
    const mount = join(dir, "mnt")
    mkdirSync(mount)
    const bound = Bun.spawnSync(["mount", "--bind", kube, mount], { stderr: "ignore" }).exitCode === 0
    try {
      if (bound) expect(readFileSync(join(mount, "config"), "utf8")).toContain("CANARY-IDENTITY")
      // Unmounted, the folder is an ordinary empty one: that is the control.
      expect(tool.evaluate(`cat ${join(mount, "config")}`).verdict?.decision).toBe(bound ? "deny" : "allow")
    } finally {
      if (bound) Bun.spawnSync(["umount", mount])
    }
  })
})

// On a node, the container runtime's spec of each container holds its environment: the secrets
// Kubernetes injected as variables.
test.each([
  "cat /var/lib/docker/containers/0123abcd/config.v2.json",
  "jq .Config.Env /var/lib/docker/containers/0123abcd/config.v2.json",
  "grep -h KEY /run/containerd/io.containerd.runtime.v2.task/k8s.io/0123abcd/config.json",
  "ls /var/lib/kubelet/pods/uid/volumes/kubernetes.io~csi/vault",
])("%s is refused even approved", (command) => {
  expect(new BashTool({ cwd: dir }).evaluate(command).verdict?.decision).toBe("deny")
})

describe("credential files named by the tools' environment", () => {
  test.each([
    ["GOOGLE_APPLICATION_CREDENTIALS", "gcp-key.json"],
    ["AWS_SHARED_CREDENTIALS_FILE", "aws-credentials"],
    ["KUBECONFIG", "cluster-admin.yaml"],
  ])("%s's file is refused even approved", (variable, name) => {
    const file = join(dir, name)
    writeFileSync(file, "secret\n")
    writeFileSync(join(dir, "app.log"), "ok\n")
    const toolset = bashToolset.create(
      { enabled: true },
      { env: { [variable]: file }, runbooks: undefined, protectedPaths: [] },
    )
    const tool = toolset.tools.find((t) => t.name === "run_bash_command") as BashTool
    expect(tool.evaluate(`cat ${file}`).verdict?.decision).toBe("deny")
    expect(tool.evaluate(`cat ${join(dir, "app.log")}`).verdict?.decision).toBe("allow")
  })
})
