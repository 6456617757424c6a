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

// Finding R5: credential stores the first list missed, by their usual paths.
describe("more credential locations are refused even approved", () => {
  const tool = new BashTool({ cwd: dir })
  test.each([
    "tail -n 50 /home/ops/.bash_history",
    "cat /root/.zsh_history",
    "cat /home/ops/.psql_history",
    "cat /home/ops/.mysql_history",
    "cat /home/ops/.python_history",
    "cat /home/ops/.viminfo",
    "cat /home/ops/.local/share/fish/fish_history",
    "cat /home/ops/.config/helm/registry/config.json",
    "cat /home/ops/.config/containers/auth.json",
    "cat /run/user/1000/containers/auth.json",
    "cat /run/containers/0/auth.json",
    "cat /home/ops/.argocd/config",
    "cat /home/ops/.config/argocd/config",
    "cat /home/ops/.tsh/keys/proxy.example.com/ops",
    "cat /home/ops/.rancher/cli2.json",
    "cat /etc/rancher/rke2/rke2.yaml",
    "cat /var/lib/rancher/rke2/server/token",
    "cat /var/snap/microk8s/current/credentials/client.config",
    "cat /var/lib/k0s/pki/admin.conf",
    "cat /home/ops/.talos/config",
    "cat /var/lib/docker/containers/abc123/mounts/secrets/db_password",
    "od -c /var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db",
    "cat /run/credentials/app.service/token",
    "cat /etc/default/dupin",
    "cat /home/ops/.terraformrc",
    "cat /home/ops/.config/openstack/clouds.yaml",
    "cat /home/ops/.m2/settings.xml",
    "cat /home/ops/.cargo/credentials.toml",
  ])("%s", (command) => {
    expect(tool.evaluate(command).verdict?.decision).toBe("deny")
  })

  test("the token and key files a kubeconfig names are refused like the kubeconfig", () => {
    const token = join(dir, "sa.token")
    const key = join(dir, "keys", "client.key.data")
    mkdirSync(join(dir, "keys"), { recursive: true })
    writeFileSync(token, "eyJhbGciOiJSUzI1NiJ9.x.y\n")
    writeFileSync(key, "key\n")
    const kubeconfig = join(dir, "prod.kubeconfig.yaml")
    writeFileSync(
      kubeconfig,
      `users:\n- name: sa\n  user:\n    tokenFile: sa.token\n    client-key: ${key}\n`,
    )
    const toolset = bashToolset.create(
      { enabled: true },
      { env: { KUBECONFIG: kubeconfig }, runbooks: undefined, protectedPaths: [] },
    )
    const bash = toolset.tools.find((t) => t.name === "run_bash_command") as BashTool
    expect(bash.evaluate(`cat ${token}`).verdict?.decision).toBe("deny")
    expect(bash.evaluate(`base64 -w0 ${key}`).verdict?.decision).toBe("deny")
    expect(bash.evaluate("cat /home/ops/app.log").verdict?.decision).toBe("allow")
  })
})
