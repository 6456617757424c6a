import { afterAll, describe, expect, test } from "bun:test"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ToolResultStatus } from "../../../src/tool/result.ts"
import { textWritePaths } from "../../../src/toolset/bash/rules/writers.ts"
import { CANARY, fill, KUBECONFIG_CANARY, Sandbox, SSH_KEY_CANARY } from "./harness.ts"

const sandbox = new Sandbox()
afterAll(() => rmSync(sandbox.dir, { recursive: true, force: true }))

/**
 * The red team's forms that got past the hard-deny list once a human approved (issue 10), and
 * their neighbours: each is run approved against the real program and must still be refused,
 * with nothing touched, nothing run and no secret in the answer.
 */
/**
 * Commands hidden in the words of a program dupin does not model, and scripts a shell reads from
 * the pipe. Each removes {{VDIR}} when run by the real program (the control below proves it).
 */
function EMBEDDED_AND_PIPED(): string[] {
  return [
    "printf 'rm -r {{VDIR}}' | sh",
    "printf '%s\\n' 'rm -r {{VDIR}}' | bash",
    "echo 'rm -r {{VDIR}}' | timeout 5 bash",
    "echo 'rm -r {{VDIR}}' | nice -n 1 sh -s",
    "echo {{RM_VDIR_B64}} | base64 -d | sh",
    "git -c alias.x='!rm -r {{VDIR}}' x",
    "tar -cf /dev/null --to-command='rm -r {{VDIR}}' {{VICTIM}}",
    "tar -I 'rm -r {{VDIR}}; gzip' -cf {{M}} {{VICTIM}}",
    "sort --compress-program='rm -r {{VDIR}}' {{VICTIM}}",
    "zip -T -TT 'rm -r {{VDIR}}' {{M}}.zip {{VICTIM}}",
    "ssh -o ProxyCommand='rm -r {{VDIR}}' localhost",
    "rsync -e 'rm -r {{VDIR}}' {{VICTIM}} host:x",
    "man -P 'rm -r {{VDIR}}' ls",
    "perl -e 'system(\"rm -r {{VDIR}}\")'",
    "gdb -batch -ex 'shell rm -r {{VDIR}}'",
    "fakeroot rm -r {{VDIR}}",
    // Spelled so a word split does not show it: quotes, escapes, substitutions, printf directives.
    "git -c alias.x='!r\"\"m -r {{VDIR}}' x",
    "git -c alias.x='!r\\m -r {{VDIR}}' x",
    "git -c alias.x='!$(printf rm) -r {{VDIR}}' x",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, where ${…} is the attack under test
    "git -c alias.x='!${X:-rm} -r {{VDIR}}' x",
    "echo -e '\\x72m -r {{VDIR}}' | sh",
    "printf '\\162m -r {{VDIR}}' | sh",
    "printf '%s%s -r {{VDIR}}' r m | sh",
    "yes 'rm -r {{VDIR}}' | head -n 1 | sh",
    // xargs puts its input where the replace string stands: the command name, a script.
    "echo 'rm -r {{VDIR}}' | xargs -I{} sh -c '{}'",
    "echo 'rm -r {{VDIR}}' | xargs -I% bash -c %",
    "echo '{{VDIR}}; rm -r {{VDIR}}' | xargs -i sh -c 'ls {}'",
    // Finding R10: programs other than shells that run their input as commands.
    "printf 'rm -r {{VDIR}}\\n' | sed e",
    "echo 'rm -r {{VDIR}}' | sed 's/^/ /e'",
    "echo 'rm -r {{VDIR}}' | awk '{system($0)}'",
    "echo 'rm -r {{VDIR}}' | gawk '{print | $0}'",
    "echo 'rm -r {{VDIR}}' | perl -ne 'system $_'",
  ]
}

const REFUSED_APPROVED = [
  "kubectl --profile none exec pod -- touch {{M}}",
  "kubectl --request-timeout 5s exec pod -- touch {{M}}",
  "kubectl --quiet auth exec -- touch {{M}}",
  "kubectl get --raw=/api/v1/namespaces/default/secrets",
  "kubectl debug -it node/x --image=busybox -- rm -r {{VDIR}}",
  "kubectl run -it x --image=busybox -- rm -r {{VDIR}}",
  "bash -c -- 'rm -r {{VDIR}}'",
  "bash -c 'ls; rm -r {{VDIR}}'",
  "sh -c 'if true; then rm -r {{VDIR}}; fi'",
  "echo -r {{VDIR}} | xargs rm",
  "echo {{VDIR}} | xargs -I{} rm -r {}",
  "find {{HOME}}/.ssh -type f | xargs cat",
  "echo 'rm -r {{VDIR}}' | sh",
  "echo 'ls; rm -r {{VDIR}}' | bash -s",
  "ls {{HOME}}/.. | xargs -n1 head",
  "flock {{VICTIM}} -c 'rm -r {{VDIR}}'",
  "flock -c 'rm -r {{VDIR}}' {{VICTIM}}",
  "watch -n 1 'rm -r {{VDIR}}'",
  "watch -x rm -r {{VDIR}}",
  "sudo -iu root rm -r {{VDIR}}",
  "timeout 5 sh -c 'echo x; rm -r {{VDIR}}'",
  "pidstat 1 1 -e sh -c 'rm -r {{VDIR}}'",
  "nice -5 rm -r {{VDIR}}",
  "getent -s files shadow",
  "getent --serv=files gshadow",
  "dmesg --fil=/proc/self/environ",
  "date -uf/proc/self/environ",
  "du --files0-from=/proc/self/environ",
  "cat /proc/net/../../self/environ",
  "cat /proc/net/../../{{SERVER_PID}}/environ",
  "cat /proc/self/cwd/../../../proc/self/environ",
  "cat {{KEYLINK}}",
  "base64 {{KEYLINK}}",
  "grep -r CANARY {{HOME}}/.ssh",
  "cat /etc/dupin/env",
  "sudo -iu root cat /proc/self/environ",
  "runuser -u nobody -c 'rm -r {{VDIR}}'",
  "pkexec rm -r {{VDIR}}",
  "script -qc 'rm -r {{VDIR}}' /dev/null",
  "bwrap --bind / / rm -r {{VDIR}}",
  "ssh localhost rm -r {{VDIR}}",
  "ip netns exec ns1 rm -r {{VDIR}}",
  "kubectl get --raw=/api/v1/namespaces/default/%73ecrets",
  // Scripts whose words the shell computes, or that move where relative paths resolve.
  "bash -c 'x=rm; $x -r {{VDIR}}'",
  "bash -c 'rm -$\"r\" {{VDIR}}'",
  "bash -c 'set -- -r; rm \"$@\" {{VDIR}}'",
  "sh -c 'cat /proc/self/env?ron'",
  "bash -c 'cd /proc/self && cat environ'",
  "bash -c 'cd {{HOME}}/.ssh; cat id_ed25519'",
  "bash -c 'cd {{HOME}}; cd .ssh; tail id_ed25519'",
  "bash -c 'cd; cat .ssh/id_ed25519'",
  "bash -c 'sh <<< \"rm -r {{VDIR}}\"'",
  "bash -c 'base64 -d <<< {{RM_VDIR_B64}} | sh'",
  "bash -c 'export -p'",
  "bash -c 'set'",
  "sh -c 'declare -x; ls'",
  "kubectl create job x --image=busybox -- rm -r {{VDIR}}",
  'kubectl run x --image=busybox --overrides=\'{"spec":{"containers":[{"name":"x","command":["rm","-r","{{VDIR}}"]}]}}\'',
  // GNU xargs keeps the command name, other xargs replace it too: the input would choose it.
  "echo rm | xargs -I{} {} -r {{VDIR}}",
  "sudo -e /etc/hosts",
  "sudoedit /etc/hosts",
  // A shell reading its script from a pipe, inside wrappers too, and from producers dupin cannot read.
  ...EMBEDDED_AND_PIPED(),
  // Finding R10: what the data becomes is checked like a script; unreadable producers are refused.
  "printf 'kubectl exec web -- touch {{M}}\\n' | sed e",
  "echo 'kubectl get secret db -n prod -o yaml' | awk '{system($0)}' | base64 -w0",
  "echo 'kubectl delete namespace prod' | sed e",
  "printf 'rm -r {{VDIR}}\\n' | sort --compress-program=sh -S 1k",
  "echo 'rm -r {{VDIR}}' | xargs sh -c",
  "echo 'kubectl exec web -- touch {{M}}' | timeout 5 sed e",
  "cat {{VICTIM}} | sed e",
  "cat {{VICTIM}} | sed -nf {{VICTIM}}",
  "cat {{VICTIM}} | awk -f {{VICTIM}}",
  "ls {{VDIR}} | awk '{system(\"rm -r \" $0)}'",
  // Finding R9: resources named by --raw, manifests and kustomizations, every workload, tokens.
  "kubectl delete --raw /api/v1/namespaces/prod",
  "kubectl delete --raw=/api/v1/namespaces/prod/",
  "kubectl replace --raw /api/v1/namespaces/prod/finalize -f {{VICTIM}}",
  "printf 'apiVersion: v1\\nkind: Namespace\\nmetadata:\\n  name: prod\\n' | kubectl delete -f -",
  "printf 'apiVersion: v1\\nkind: Secret\\nmetadata:\\n  name: db\\n' | kubectl get -f - -o yaml",
  "kubectl describe --filename=https://example.com/x.yaml",
  "kubectl delete -k {{VDIR}}",
  "kubectl delete -Rf {{VDIR}}",
  "kubectl delete all --all -n prod",
  "kubectl create --raw /api/v1/namespaces/prod/serviceaccounts/default/token -f -",
  "kubectl create token default",
]

describe("hard deny holds even when approved", () => {
  for (const template of REFUSED_APPROVED) {
    test(template, async () => {
      const paths = { ...sandbox.fresh(), home: sandbox.home, keyLink: sandbox.keyLink }
      const command = fillVdir(fill(template, paths), paths.victimDir)
      expect(sandbox.tool().requiresApproval({ command })).toBe(false)
      sandbox.clearShimLog()
      const result = await sandbox.run(command, { approved: true })
      const output = `${result.dataText()}\n${result.error ?? ""}`
      expect(result.status).toBe(ToolResultStatus.ERROR)
      expect(result.error).toContain("not run, even with approval")
      expect(sandbox.markerExists(paths.marker)).toBe(false)
      expect(sandbox.victimIntact(paths.victim)).toBe(true)
      expect(sandbox.victimDirIntact(paths.victimDir)).toBe(true)
      expect(sandbox.shimCalls()).toEqual([])
      for (const secret of [CANARY, KUBECONFIG_CANARY, SSH_KEY_CANARY]) expect(output).not.toContain(secret)
    })
  }

  test("sed --in-pl on /etc/hosts is refused approved, and /etc/hosts is unchanged", async () => {
    const before = readFileSync("/etc/hosts", "utf8")
    const result = await sandbox.run("sed --in-pl s/localhost/evil/ /etc/hosts", { approved: true })
    expect(result.error).toContain("not run, even with approval")
    expect(readFileSync("/etc/hosts", "utf8")).toBe(before)
  })
})

describe("manifests a kubectl command names are read (finding R9)", () => {
  const manifest = (name: string, text: string) => {
    const path = join(sandbox.dir, name)
    writeFileSync(path, text)
    return path
  }
  const secret = manifest("db.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n")
  const list = manifest("list.json", '{"apiVersion":"v1","kind":"List","items":[]}')
  const namespace = manifest("ns.yaml", 'kind: Deployment\n---\nkind: "Namespace"\n')
  const deployment = manifest(
    "web.yaml",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  namespace: prod\n",
  )

  test("a Secret, a Namespace or a List in the file is refused approved", async () => {
    for (const command of [
      `kubectl get -f ${secret} -o yaml`,
      `kubectl delete -f ${namespace}`,
      `kubectl apply -f ${list}`,
    ]) {
      const result = await sandbox.run(command, { approved: true })
      expect({ command, error: result.error }).toEqual({
        command,
        error: expect.stringContaining("not run, even with approval"),
      })
    }
    expect(sandbox.shimCalls()).toEqual([])
  })

  test("another kind still asks a human, and the prompt says what runs", () => {
    expect(sandbox.tool().requiresApproval({ command: `kubectl apply -f ${deployment}` })).toContain(
      "kubectl apply",
    )
    expect(sandbox.tool().requiresApproval({ command: "echo 'uptime' | sed e" })).toContain("(uptime)")
    expect(
      sandbox.tool().requiresApproval({ command: "kubectl get --raw /api/v1/namespaces/prod" }),
    ).toContain("--raw")
  })
})

/** `{{RM_VDIR_B64}}`: `rm -r VDIR`, base64-encoded (the script a human approving cannot read). */
function fillVdir(command: string, victimDir: string): string {
  return command.replaceAll("{{RM_VDIR_B64}}", Buffer.from(`rm -r ${victimDir}`).toString("base64"))
}

// The control: run by a plain shell (not through dupin), each of these forms does remove the victim
// folder, so the refusal above is what keeps it.
describe("the embedded and piped forms are real", () => {
  const real = EMBEDDED_AND_PIPED().filter((c) => /^(printf|echo|git|tar -I|zip|perl|fakeroot|yes)/.test(c))
  for (const template of real) {
    test(template, () => {
      const paths = { ...sandbox.fresh(), home: sandbox.home }
      const command = fillVdir(fill(template, paths), paths.victimDir)
      Bun.spawnSync(["bash", "-c", command], { cwd: sandbox.dir, stdout: "ignore", stderr: "ignore" })
      expect(sandbox.victimDirIntact(paths.victimDir)).toBe(false)
    })
  }
})

// The embedded search reads text as a shell would: words that only mention a command stay a
// human's decision.
test.each([
  "kubectl set env deploy/x FOO=bar",
  "kubectl label pod x env=prod",
  "helm install x ./chart --set env=prod",
  'git commit -m "don\'t break the env"',
  "sudo awk '{print $1}' /var/log/syslog",
  // Programs that do not run their input stay a human's decision whatever feeds them (R10).
  "kubectl logs x | sed -n '/ready/p;:a'",
  "kubectl get pods | awk '{print $1 | \"sort\"}'",
  "kubectl get pods -o json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'",
  "sudo kubectl get pods -o jsonpath='{$.items[*].metadata.name}'",
  "bash -c 'set -euxo pipefail; cd /var/log && tail -n 5 syslog'",
  `kubectl patch deploy x -p '{"spec":{"template":{"spec":{"containers":[${Array.from({ length: 40 }, (_, i) => `{"name":"c${i}","image":"nginx"}`).join(",")}]}}}}'`,
  `git commit -m '${"a long message of many words ".repeat(40)}'`,
])("%s still asks a human", (command) => {
  expect(sandbox.tool().evaluate(command).verdict?.decision).toBe("approve")
})

/**
 * Files named inside a program text or by position are written too: refused under /etc even
 * approved. `{{OUT}}` is a fresh path under /etc; the control writes the same form to a temp path.
 */
const TEXT_WRITES = [
  "sed 'w {{OUT}}' {{VICTIM}}",
  "sed -n 's/old/new/w {{OUT}}' {{VICTIM}}",
  "sed -e p -e '1W{{OUT}}' {{VICTIM}}",
  "sed --expression='1w{{OUT}}' {{VICTIM}}",
  "awk '{print > \"{{OUT}}\"}' {{VICTIM}}",
  "gawk '{print >> \"{{OUT}}\"}' {{VICTIM}}",
  "mawk '{print | \"cat > {{OUT}}\"}' {{VICTIM}}",
  "uniq {{VICTIM}} {{OUT}}",
]

describe("writes named in program texts and by position", () => {
  for (const template of TEXT_WRITES) {
    test(`${template} is refused approved under /etc`, async () => {
      const paths = { ...sandbox.fresh(), home: sandbox.home }
      const out = `/etc/dupin-probe-${Math.random().toString(36).slice(2)}`
      const result = await sandbox.run(fill(template, paths).replaceAll("{{OUT}}", out), { approved: true })
      expect(result.error).toContain("not run, even with approval")
      expect(existsSync(out)).toBe(false)
    })
    test(`${template} writes for real (control, outside /etc)`, () => {
      const paths = { ...sandbox.fresh(), home: sandbox.home }
      const out = join(sandbox.dir, `out-${Math.random().toString(36).slice(2)}`)
      const command = fill(template, paths).replaceAll("{{OUT}}", out)
      Bun.spawnSync(["bash", "-c", command], { cwd: sandbox.dir, stdout: "ignore", stderr: "ignore" })
      expect(existsSync(out)).toBe(true)
    })
  }

  test("/etc under another name (a bind mount) is /etc, where the host lets the test mount", async () => {
    // A `w` in the name: sed's file name runs to the end of the line, not to the next `w`.
    const mount = join(sandbox.dir, `etc-w0w-${Math.random().toString(36).slice(2)}`)
    Bun.spawnSync(["mkdir", mount])
    const bound = Bun.spawnSync(["mount", "--bind", "/etc", mount], { stderr: "ignore" }).exitCode === 0
    try {
      const out = join(mount, `dupin-probe-${Math.random().toString(36).slice(2)}`)
      const result = await sandbox.run(`sed -n 'w ${out}' /etc/hostname`, { approved: true })
      // Unmounted, the folder is an ordinary one and the write happens there: that is the control.
      expect(existsSync(out)).toBe(!bound)
      if (bound) expect(result.error).toContain("not run, even with approval")
    } finally {
      if (bound) Bun.spawnSync(["umount", mount])
    }
  })

  test("a write target is checked whole, not only in pieces split at a w or a space", () => {
    const name = "/srv/etc-0wk3/a b/dupin-probe"
    expect(textWritePaths("sed", ["-n", `w ${name}`, "/etc/hostname"])).toContain(name)
    expect(textWritePaths("sed", [`s/x/y/w${name}`, "f"])).toContain(name)
    expect(textWritePaths("awk", [`{ print > "${name}" }`, "f"])).toContain(name)
    // Past the cap of write-like spots the text counts as writing under /etc.
    const many = Array.from({ length: 40 }, (_, i) => `${i}w /tmp/o${i}`).join("\n")
    expect(textWritePaths("sed", ["-n", many, "f"]).some((p) => p.startsWith("/etc/"))).toBe(true)
  })

  test("a file with a second name that could be in /etc is not overwritten approved", async () => {
    const paths = { ...sandbox.fresh(), home: sandbox.home }
    const result = await sandbox.run(fill(`cp {{VICTIM}} ${sandbox.hardLink}`, paths), { approved: true })
    expect(result.error).toContain("not run, even with approval")
    expect(readFileSync(sandbox.hardLink, "utf8")).toContain(SSH_KEY_CANARY)
  })

  test("reading under /etc with sed, awk and uniq is still a read", () => {
    for (const command of [
      "sed -n p /etc/network/interfaces",
      "sed -n '/www/p' /etc/hostname",
      "awk '$3 > 100' /etc/passwd",
      "uniq -c /etc/hostname",
    ])
      expect(sandbox.tool().evaluate(command).verdict?.decision).toBe("allow")
  })
})

describe("reading ordinary files is a read", () => {
  for (const [command, expected] of [
    ["cat /etc/hostname", readFileSync("/etc/hostname", "utf8")],
    ["head -n 1 /etc/os-release", `${readFileSync("/etc/os-release", "utf8").split("\n")[0]}\n`],
    ["tail -n 1 /etc/passwd", `${readFileSync("/etc/passwd", "utf8").trimEnd().split("\n").at(-1)}\n`],
    ["seq 1 5 | tail -n 2", "4\n5\n"],
  ] as const) {
    test(`${command} runs without approval and returns the file`, async () => {
      expect(sandbox.tool().requiresApproval({ command })).toBe(false)
      const result = await sandbox.run(command)
      expect(result.status).toBe(ToolResultStatus.SUCCESS)
      expect(result.dataText()).toBe(expected)
    })
  }
})

describe("pipeline bounds", () => {
  test("a pipeline of more than 16 stages is refused before anything runs", async () => {
    const { marker } = sandbox.fresh()
    const command = `${"echo x | ".repeat(16)}touch ${marker}`
    const result = await sandbox.run(command, { approved: true })
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toContain("at most 16")
    expect(sandbox.markerExists(marker)).toBe(false)
  })

  test("the red team's 3,000-stage pipeline is refused at once", async () => {
    const started = performance.now()
    const result = await sandbox.run(`${"cat | ".repeat(1999)}cat`, { approved: true })
    expect(result.status).toBe(ToolResultStatus.ERROR)
    expect(result.error).toMatch(/characters long|at most 16/)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  test("16 stages still run", async () => {
    const result = await sandbox.run(`echo x${" | cat".repeat(15)}`)
    expect(result.status).toBe(ToolResultStatus.SUCCESS)
    expect(result.dataText()).toBe("x\n")
  })

  test("a command that would make the policy try thousands of inner commands is refused quickly", () => {
    const tool = sandbox.tool()
    for (const command of [
      `ssh ${"x ".repeat(2000)}`,
      `pkexec ${"'pkexec a b c; d' ".repeat(200)}`,
      `bash -c '${"pkexec a b c d e f g h; ".repeat(150)}'`,
    ]) {
      const started = performance.now()
      expect(tool.evaluate(command).verdict?.decision).toBe("deny")
      expect(performance.now() - started).toBeLessThan(500)
    }
  })

  test("a command longer than 4,096 characters is refused", async () => {
    const result = await sandbox.run(`echo ${"a".repeat(5000)}`, { approved: true })
    expect(result.error).toContain("characters long")
  })
})
