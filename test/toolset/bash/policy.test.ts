import { describe, expect, test } from "bun:test"
import { parseCommand } from "../../../src/toolset/bash/parse.ts"
import { classifyPipeline } from "../../../src/toolset/bash/policy.ts"
import { awkProgramVerdict } from "../../../src/toolset/bash/rules/awk-program.ts"
import { sedScriptProblem } from "../../../src/toolset/bash/rules/sed-script.ts"
import type { Decision } from "../../../src/toolset/bash/verdict.ts"

function decide(command: string): Decision {
  const parsed = parseCommand(command)
  if (!parsed.ok) throw new Error(`${command}: ${parsed.reason}`)
  return classifyPipeline(parsed.stages, { cwd: "/tmp" }).decision
}

const table: Record<Decision, string[]> = {
  allow: [
    "kubectl get pods -A",
    "kubectl -n kube-system describe pod x",
    "kubectl logs -f x --previous",
    "kubectl get pods -oyaml",
    "kubectl get pods -l app=secret-store",
    "kubectl config get-contexts",
    "helm history x",
    "docker container ls",
    "systemctl status kubelet",
    "systemctl list-units --failed",
    "journalctl -u kubelet --since today",
    "dmesg -T",
    "ip -br addr show",
    "ss -tulpn",
    "ps -C kube-apiserver -o pid",
    "cat /proc/pressure/memory",
    "find /var/log -name '*.log' -mtime -1",
    "grep -A 3 -i error",
    "sed -n '/start/,/end/p'",
    "sed -e 's/a/b/g' -e '/^#/d'",
    "awk -F: '{n[$1]++} END {for (k in n) print k, n[k]}'",
    "jq -r --arg ns x '.items[] | select(.ns == $ns)'",
    "jq -n --args '$ARGS' a b",
    "tail -20",
    "sort -k2,2n -t,",
  ],
  approve: [
    "kubectl delete pod x",
    "kubectl rollout status deploy/x",
    "kubectl get pods --context=prod",
    "kubectl get pods --kubeconfig=/tmp/kubeconfig",
    "kubectl get pods -v=9",
    "kubectl config view",
    "kubectl cluster-info dump",
    "kubectl plugin-x",
    "helm upgrade x ./c",
    "helm --kube-context=prod list",
    "docker exec c ls",
    "aws s3 ls",
    "grep x /var/log/syslog",
    "grep --fil=/tmp/p",
    "head -n 5 /tmp/x",
    "sort -o /tmp/out",
    "sort --compress-program=sh",
    "uniq - /tmp/out",
    "sed -n 'l;e id'",
    "sed 's/a/b/;r /tmp/x'",
    "sed '/x/!{w /tmp/o\n}'",
    "awk '{print > \"/tmp/o\"}'",
    "awk '{print $1, $2 >> \"/tmp/o\"}'",
    'awk \'{printf("%s", $1) > "/tmp/o"}\'',
    'awk \'{print "x" | "sh"}\'',
    "awk '{x++ / 2; print | \"sh\"}'",
    "jq -L /tmp 'import \"x\" as x; .'",
    "jq . /tmp/file.json",
    "cat /etc/os-release",
    "cat /proc/1/fdinfo/1",
    "hostname -F /etc/hostname",
    "date -s 2020-01-01",
    "ps o pid,cmd",
    "top",
    "xargs echo",
    "bash -c 'kubectl get pods'",
    "python3 -c 1",
    "/usr/bin/uptime",
    "ssh host",
  ],
  deny: [
    "kubectl exec p -- id",
    "kubectl delete namespace x",
    "kubectl delete ns/x",
    "kubectl get secret x -o yaml",
    "kubectl get SECRETS",
    "kubectl get pods,secrets.v1",
    "kubectl config view --raw",
    "kubectl get pods --kubeconfig=/etc/shadow",
    "helm get values x --kubeconfig /root/.ssh/id_rsa",
    "aws secretsmanager get-secret-value --secret-id x",
    "az keyvault secret show --name x",
    "rm -fr /tmp/x",
    "rm -R /tmp/x",
    "rm --recur /tmp/x",
    "tee /etc/hosts",
    "cp /tmp/x /etc/",
    "dd if=/tmp/x of=/etc/fstab",
    "sed -i s/a/b/ /etc/fstab",
    "sort -o /etc/passwd",
    "mv /tmp/x ../../../../../../etc/passwd",
    "env",
    "printenv HOME",
    "ps auxeww",
    "jq -n '$ENV'",
    "awk 'BEGIN{print ENVIRON[\"HOME\"]}'",
    "find / -delete",
    "find . -exec rm {} +",
    "getent gshadow",
    "cat /proc/self/environ",
    "cat /proc/1/task/1/environ",
    "grep x /var/run/secrets/kubernetes.io/serviceaccount/token",
    "grep x /home/u/.aws/credentials",
    "grep x --file=/etc/shadow",
    "docker cp c:/x /etc/x",
    "sudo rm -rf /",
    "timeout 5 kubectl exec p -- sh",
    "xargs -I{} kubectl delete ns {}",
    "sh -c 'env'",
    "bash -lc 'cat /etc/shadow'",
    "kubectl get pods | kubectl exec -i p -- sh",
  ],
}

for (const [decision, commands] of Object.entries(table) as Array<[Decision, string[]]>) {
  describe(`policy: ${decision}`, () => {
    for (const command of commands)
      test(JSON.stringify(command), () => expect(decide(command)).toBe(decision))
  })
}

describe("sed script scanner", () => {
  for (const script of [
    "s/a/b/g",
    "s|a|b|2",
    "/x/,/y/d",
    "1~2p",
    "$!N;P;D",
    "y/abc/xyz/",
    "a\\\nline",
    "/re/I,+3{p;=}",
    ":a;N;ba",
    "s/w/e/",
  ]) {
    test(`safe ${JSON.stringify(script)}`, () => expect(sedScriptProblem(script)).toBeUndefined())
  }
  for (const script of [
    "e",
    "e id",
    "1e id",
    "s/a/b/e",
    "s/a/b/gw /x",
    "w /x",
    "W /x",
    "r /x",
    "R /x",
    "/x/ w /y",
    "s,a,b,;e",
    "p;w x",
    "$!{e id\n}",
    "y/a/b/;r x",
    "z;q5;e",
    "k",
  ]) {
    test(`refused ${JSON.stringify(script)}`, () => expect(sedScriptProblem(script)).toBeDefined())
  }
})

describe("awk program scanner", () => {
  for (const program of [
    "{print $1}",
    "$3 > 5",
    "NR>1 {print ($2 > 3)}",
    "/a|b/ {n++} END {print n}",
    "{ a = $1 / 2; print a }",
    "{ if ($1 >= 2 || $2 ~ /x|y/) print }",
  ]) {
    test(`safe ${JSON.stringify(program)}`, () => expect(awkProgramVerdict(program)).toBeUndefined())
  }
  for (const program of [
    'BEGIN{system("id")}',
    '{print | "sh"}',
    '{"date" | getline d}',
    '{print > "f"}',
    '{printf "%s", $1 >> "f"}',
    '{print $1,\n$2 > "f"}',
    'BEGIN{ARGV[1]="/etc/shadow"}',
    '@load "x"',
    '{print |& "sh"}',
    '{ x = a / b; print | "sh" }',
    '{ x++ / 1; print 1 | "sh"; y = 1 / 2 }',
  ]) {
    test(`refused ${JSON.stringify(program)}`, () => expect(awkProgramVerdict(program)).toBeDefined())
  }
})
