import { describe, expect, test } from "bun:test"
import { readdirSync, statSync } from "node:fs"
import { parseCommand } from "../../../src/toolset/bash/parse.ts"
import { classifyPipeline } from "../../../src/toolset/bash/policy.ts"
import type { Decision } from "../../../src/toolset/bash/verdict.ts"

/** A kubeconfig from KUBECONFIG and dupin's config file, as the composition passes them. */
const PROTECTED = ["/srv/kube/prod.conf", "/opt/dupin/config.yaml"]

function decide(command: string): Decision {
  const parsed = parseCommand(command)
  if (!parsed.ok) throw new Error(`${command}: ${parsed.reason}`)
  return classifyPipeline(parsed.stages, { cwd: "/tmp", protectedPaths: PROTECTED }).decision
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
    "grep x /var/log/syslog",
    "journalctl -b -1 -u kubelet -n 20 --no-pager",
    "journalctl --since=-1h -p err -o short-iso",
    "systemctl status --no-pager -n 5 ssh",
    "systemctl list-units --type=service --state=failed",
    "kubectl --namespace kube-system get pods -o wide",
    "kubectl get pods -n=default --show-labels=true",
    "kubectl logs -f --tail=10 pod -c main",
    "kubectl api-resources --namespaced=false",
    "docker ps -a --format '{{.Names}}'",
    "docker container ls -q",
    "helm -n x list -A",
    "helm get values x --revision 2",
    "ss -tulpn state established",
    "date -u +%FT%T -d @0",
    "find / -xdev -newermt 2020-01-01 -name x",
    "lsof -nP -iTCP:443",
    "sysctl -n net.ipv4.ip_forward",
    "timedatectl status",
    "hostnamectl",
    "od -An -c /etc/hostname",
    "readlink -f /etc/localtime",
    "head -n 5 /tmp/x",
    "jq . /tmp/file.json",
    "cat /etc/os-release",
    "cat /proc/self/fdinfo/0",
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
    "grep --fil=/tmp/p",
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
    "ps -eF e",
    "ps -N e",
    "ps -p 1 2 e",
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
    "cat /srv/kube/prod.conf",
    "grep server /srv/kube/../kube/prod.conf",
    "head --lines=3 /opt/dupin/config.yaml",
    "tail -f /etc/dupin/env",
    "ls /etc/dupin/",
    "kubectl get pods | xargs kubectl",
    "xargs kubectl describe",
    "sudo sudo sudo sudo sudo sudo id",
    "strace -o /etc/ld.so.preload true",
    "kubectl --quiet auth exec -- id",
    "kubectl get -f a.yaml,.kube/config",
    "cat a,/etc/shadow",
    "kubectl --watch get exec pod -- id",
    "kubectl -l get exec pod -- id",
    "strace -o/etc/x true",
    "ss -D /etc/x",
    "kubectl --log-file=/etc/cron.d/x get pods",
    "ip netns exec x rm -r /tmp/x",
  ],
}

for (const [decision, commands] of Object.entries(table) as Array<[Decision, string[]]>) {
  describe(`policy: ${decision}`, () => {
    for (const command of commands)
      test(JSON.stringify(command), () => expect(decide(command)).toBe(decision))
  })
}

/** A block device on this machine, if any: reading one bypasses every file permission. */
const blockDevice = readdirSync("/dev")
  .map((name) => `/dev/${name}`)
  .find((path) => {
    try {
      return statSync(path).isBlockDevice()
    } catch {
      return false
    }
  })

describe.if(blockDevice !== undefined)("block devices", () => {
  test("reading a raw disk is refused, naming one for its metadata is not", () => {
    expect(decide(`head -c 512 ${blockDevice}`)).toBe("deny")
    expect(decide(`sudo strings ${blockDevice}`)).toBe("deny")
    expect(decide(`df ${blockDevice}`)).toBe("allow")
    expect(decide(`lsblk ${blockDevice}`)).toBe("allow")
  })
})
