/**
 * Records the screen of a scripted `dupin ask` session for docs/ask-session.txt: the real CLI on
 * a pseudo-terminal against the fake provider and a small fake-kubectl toolset, the output
 * played into a headless terminal, the final screen printed (text only; colour is dropped).
 *
 *   bun test/support/ask-screen-capture.ts > docs/ask-session.txt
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startFakeProvider } from "./fake-provider.ts"
import { screenOf } from "./screen.ts"

const MAIN = join(import.meta.dir, "../../src/main.ts")
const dir = mkdtempSync(join(tmpdir(), "dupin-capture-"))
const klog = join(dir, "klog.txt")
writeFileSync(
  klog,
  [
    "E1123 10:00:00.100000   4242 memcache.go:265] couldn't get current server API group list",
    'Error from server (NotFound): deployments.apps "checkout" not found',
    "",
  ].join("\n"),
)
const toolset = join(dir, "kube.yaml")
writeFileSync(
  toolset,
  `toolsets:
  demo/kube:
    description: kubectl, faked for the capture
    tools:
      - name: list_pods
        description: List pods
        command: "sleep 0.4; printf 'NAME                        READY   STATUS             RESTARTS\\\\ncheckout-7d9f8b-x2k4p      0/1     CrashLoopBackOff   12\\\\n'"
        parameters:
          namespace: { type: string }
      - name: read_pod_logs
        description: Logs of a pod
        command: "sleep 0.8; echo 'FATAL: could not connect to postgres:5432: connection refused'"
        parameters:
          pod: { type: string }
          namespace: { type: string }
      - name: describe_resource
        description: Describe a resource
        command: "cat ${klog} >&2; exit 1"
        parameters:
          kind: { type: string }
          name: { type: string }
`,
)

const fake = await startFakeProvider()
const plan = (a: string, b: string, c: string) => ({
  todos: [
    { id: "1", content: "Find the failing pod", status: a },
    { id: "2", content: "Read its logs and the deployment", status: b },
    { id: "3", content: "Explain the cause", status: c },
  ],
})
fake.script(
  { toolCalls: [{ name: "TodoWrite", arguments: plan("in_progress", "pending", "pending") }], delayMs: 500 },
  { toolCalls: [{ name: "list_pods", arguments: { namespace: "shop" } }], delayMs: 400 },
  {
    content: "checkout is crash-looping; reading its logs and its deployment.",
    toolCalls: [
      { name: "TodoWrite", arguments: plan("completed", "in_progress", "pending") },
      { name: "read_pod_logs", arguments: { pod: "checkout-7d9f8b-x2k4p", namespace: "shop" } },
      { name: "describe_resource", arguments: { kind: "deployment", name: "checkout" } },
    ],
    delayMs: 400,
  },
  {
    content: [
      "## Cause",
      "",
      "`checkout` cannot reach **postgres**: every start fails with `connection refused` on port 5432,",
      "so the pod restarts in a loop.",
      "",
      "| pod | status | restarts |",
      "|---|---|---|",
      "| checkout-7d9f8b-x2k4p | CrashLoopBackOff | 12 |",
      "",
      "## Next steps",
      "",
      "1. Check the database service: `kubectl -n shop get svc,endpoints postgres`",
      "2. If it has no endpoints, look at the postgres pod:",
      "",
      "```bash",
      "kubectl -n shop logs statefulset/postgres --tail=50",
      "```",
      "",
      "See [Debug services](https://kubernetes.io/docs/tasks/debug/debug-application/debug-service/).",
    ].join("\n"),
    chunkDelayMs: 30,
  },
)

let output = ""
const cols = 100
const proc = Bun.spawn(
  [process.execPath, MAIN, "ask", "why is checkout down in shop?", "--toolset-file", toolset],
  {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir,
      TERM: "xterm-256color",
      OPENAI_API_KEY: "demo",
      OPENAI_BASE_URL: fake.url,
      MODEL: "openai/gpt-4.1",
    },
    cwd: dir,
    terminal: {
      cols,
      rows: 60,
      data: (_t, data) => {
        output += new TextDecoder().decode(data).replaceAll("\r\n", "\n")
      },
    },
  },
)
// A moment while two calls run (the spinners), then the end: the follow-up prompt after the answer.
let running = ""
for (let i = 0; i < 300 && !/Debug services[\s\S]*> $/.test(output); i++) {
  if (!running && /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\S* read_pod_logs\([^\n]*\S* 0\.[4-6]s\S*\n$/.test(output))
    running = await screenOf(output, cols, 60)
  await Bun.sleep(50)
}
proc.terminal?.write("exit\r")
await proc.exited
proc.terminal?.close()
await fake.stop()
rmSync(dir, { recursive: true, force: true })
const screen = await screenOf(output, cols, 60)
const command = `$ dupin ask "why is checkout down in shop?" --toolset-file kube.yaml`
process.stdout.write(
  `While it works:\n\n${command}\n${running}\n\nWhen it has answered:\n\n${command}\n${screen}\n`,
)
