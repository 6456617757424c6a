import { describe, expect, test } from "bun:test"
import { tmpdir } from "node:os"
import { PtySession } from "./pty.ts"
import {
  approvalToolsetFile,
  cliEnv,
  runCli,
  SUBPROCESS_TIMEOUT_MS,
  tempFile,
  terminalTests,
} from "./support.ts"

/** Progress lines that say what happened, and logs that stay out of the conversation. */
const t = terminalTests()

const KLOG_NOISE = [
  "I1123 10:00:00.000000   12345 memcache.go:265] couldn't get current server API group list",
  "E1123 10:00:00.100000   12345 memcache.go:265] couldn't get resource list for metrics.k8s.io/v1beta1",
  'error: the server doesn\'t have a resource type "podz"',
  "W1123 10:00:00.200000   12345 loader.go:222] Config not found: /root/.kube/config",
]

function kubeToolset(): string {
  // kubectl's way: klog chatter around the one line that says what went wrong, on stderr.
  const noise = tempFile("klog.txt", `${KLOG_NOISE.join("\n")}\n`)
  return tempFile(
    "kube.yaml",
    `toolsets:
  test/kube:
    description: Fake kubectl
    tools:
      - name: get_pods
        description: List pods
        command: "echo pods in {{ namespace }}"
        parameters:
          namespace: { type: string }
      - name: get_kind
        description: Get a resource kind
        command: "cat ${noise} >&2; exit 1"
        parameters:
          kind: { type: string }
`,
  )
}

describe("progress lines", () => {
  test(
    "✓/✗ lines name the call, so parallel calls of one tool are told apart; an error keeps its useful line, not klog noise; a plan is a checklist",
    async () => {
      t.fake.script(
        {
          toolCalls: [
            {
              name: "TodoWrite",
              arguments: {
                todos: [
                  { id: "1", content: "list the pods", status: "completed" },
                  { id: "2", content: "read the events", status: "in_progress" },
                  { id: "3", content: "check the node", status: "pending" },
                ],
              },
            },
            { name: "get_pods", arguments: { namespace: "web" } },
            { name: "get_pods", arguments: { namespace: "db" } },
            { name: "get_kind", arguments: { kind: "podz" } },
          ],
        },
        { content: "Done." },
      )
      const result = await runCli(["ask", "what runs?", "--toolset-file", kubeToolset()], {
        env: cliEnv(t.fake),
      })
      expect(result.code).toBe(0)
      const lines = result.stderr.split("\n")
      expect(lines).toContain("▸ get_pods(namespace=web)")
      expect(lines).toContain("▸ get_pods(namespace=db)")
      expect(result.stderr).toMatch(/^✓ get_pods\(namespace=web\) \d+\.\ds$/m)
      expect(result.stderr).toMatch(/^✓ get_pods\(namespace=db\) \d+\.\ds$/m)
      expect(result.stderr).toMatch(
        /^✗ get_kind\(kind=podz\) \d+\.\ds error: the server doesn't have a resource type "podz"$/m,
      )
      expect(result.stderr).not.toContain("memcache.go")
      expect(result.stderr).toMatch(
        /^✓ TodoWrite\(3 items\) \d+\.\ds\n {2}☑ list the pods\n {2}◐ read the events\n {2}☐ check the node$/m,
      )
      expect(result.stderr).not.toContain('"status"')
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

describe("colour on a terminal", () => {
  for (const noColor of [false, true]) {
    test(
      noColor ? "NO_COLOR: the same lines without colour" : "green success, red failure, yellow denial",
      async () => {
        t.fake.script(
          {
            toolCalls: [
              { name: "get_pods", arguments: { namespace: "web" } },
              { name: "get_kind", arguments: { kind: "podz" } },
              { name: "restart_service", arguments: { service: "nginx" } },
            ],
          },
          { content: "Done." },
        )
        const env = { ...cliEnv(t.fake), TERM: "xterm-256color", ...(noColor ? { NO_COLOR: "1" } : {}) }
        const args = ["ask", "go", "--no-interactive", "--toolset-file", kubeToolset()]
        t.session = new PtySession([...args, "--toolset-file", approvalToolsetFile()], env, tmpdir())
        await t.session.waitFor("Run restart_service(service=nginx)? [y/N] ")
        t.session.type("n\r")
        await t.session.waitFor("Enter to skip): ")
        t.session.type("\r")
        expect(await t.session.exited(SUBPROCESS_TIMEOUT_MS)).toBe(0)
        const out = t.session.output
        const E = "\x1b"
        if (noColor) {
          expect(out).toMatch(/\[J✓ get_pods\(namespace=web\) \d+\.\ds\n/)
          expect(out).toMatch(/\[J✗ get_kind\(kind=podz\) \d+\.\ds error: /)
          expect(out).toMatch(/\[J✗ restart_service\(service=nginx\) \d+\.\ds Tool execution was denied/)
          expect(out).not.toMatch(new RegExp(`${E}\\[3\\dm`))
        } else {
          expect(out).toContain(`${E}[32m✓${E}[39m get_pods(namespace=web)`)
          expect(out).toContain(`${E}[31m✗${E}[39m get_kind(kind=podz)`)
          expect(out).toContain(`${E}[31merror: the server doesn't have a resource type "podz"${E}[39m`)
          expect(out).toContain(`${E}[33m✗${E}[39m restart_service(service=nginx)`)
          expect(out).toContain(`${E}[33mTool execution was denied by the user.`)
        }
      },
      SUBPROCESS_TIMEOUT_MS,
    )
  }
})

describe("logs in ask", () => {
  const unknownModel = { MODEL: "openai/gpt-unknown-test" }

  test(
    "on a terminal a warning is one readable line, not JSON",
    async () => {
      t.fake.script({ status: 503 }, { content: "Fine." })
      t.session = new PtySession(
        ["ask", "status?", "--no-interactive"],
        { ...cliEnv(t.fake, unknownModel), TERM: "xterm-256color" },
        tmpdir(),
      )
      expect(await t.session.exited(SUBPROCESS_TIMEOUT_MS)).toBe(0)
      const out = t.session.output
      expect(out).toMatch(
        /warning: Model not in the built-in catalog; using defaults\..*\(model=openai\/gpt-unknown-test/,
      )
      expect(out).toMatch(
        /warning: llm call failed, retrying \(model=openai\/gpt-unknown-test, attempt=1, of=4, kind=unavailable, status=503/,
      )
      expect(out).not.toContain('"level"')
      expect(out).not.toContain('{"time"')
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "on a terminal without cursor moves (TERM=dumb) a warning is a readable line too",
    async () => {
      t.fake.script({ content: "Fine." })
      t.session = new PtySession(
        ["ask", "status?", "--no-interactive"],
        { ...cliEnv(t.fake, unknownModel), TERM: "dumb" },
        tmpdir(),
      )
      expect(await t.session.exited(SUBPROCESS_TIMEOUT_MS)).toBe(0)
      expect(t.session.output).toMatch(/warning: Model not in the built-in catalog; using defaults\./)
      expect(t.session.output).not.toContain('"level"')
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "with stderr redirected, or SVC_LOG_LEVEL set, logs stay JSON lines",
    async () => {
      t.fake.script({ status: 503 }, { content: "Fine." })
      const piped = await runCli(["ask", "status?"], { env: cliEnv(t.fake, unknownModel) })
      expect(piped.code).toBe(0)
      const json = piped.stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { level: string; msg: string })
      expect(json.map((l) => l.msg)).toContain("llm call failed, retrying")
      expect(json.every((l) => l.level === "WARN")).toBe(true)

      t.fake.script({ content: "Fine." })
      t.session = new PtySession(
        ["ask", "status?", "--no-interactive"],
        { ...cliEnv(t.fake, unknownModel), TERM: "xterm-256color", SVC_LOG_LEVEL: "WARN" },
        tmpdir(),
      )
      expect(await t.session.exited(SUBPROCESS_TIMEOUT_MS)).toBe(0)
      expect(t.session.output).toContain('"level":"WARN"')
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

describe("provider errors name the URL and what set it", () => {
  test(
    "an unreachable OPENAI_BASE_URL",
    async () => {
      const result = await runCli(["ask", "status?"], {
        env: cliEnv(undefined, {
          OPENAI_API_KEY: "k",
          MODEL: "openai/gpt-4o",
          OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        }),
      })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain("(tried http://127.0.0.1:9/v1, set by OPENAI_BASE_URL)")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "an invalid URL says which setting holds it: a variable, or api_base in the config",
    async () => {
      const env = cliEnv(undefined, {
        OPENAI_API_KEY: "k",
        MODEL: "openai/gpt-4o",
        OPENAI_BASE_URL: "localhost:8080",
      })
      const fromEnv = await runCli(["ask", "status?"], { env })
      expect(fromEnv.code).toBe(2)
      expect(fromEnv.stderr).toContain(
        'Invalid base URL "localhost:8080" for model openai/gpt-4o, set by OPENAI_BASE_URL',
      )
      expect(t.fake.requests).toHaveLength(0)

      const config = tempFile(
        "config.yaml",
        "model: openai/gpt-4o\napi_key: k\napi_base: ftp://models.internal/v1\n",
      )
      const fromConfig = await runCli(["ask", "status?", "--config", config], {
        env: cliEnv(undefined, { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }),
      })
      expect(fromConfig.code).toBe(2)
      expect(fromConfig.stderr).toContain('Invalid base URL "ftp://models.internal/v1"')
      expect(fromConfig.stderr).toContain("set by api_base in the config")
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
