/**
 * The published AG-UI client (`@ag-ui/client`'s HttpAgent) against a real `dupin serve` process,
 * with its default containment: the tools run as a deployment runs them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BaseEvent, HttpAgent, type RunAgentParameters } from "@ag-ui/client"
import { type ServerProcess, startServerProcess } from "../bench/support/processes.ts"
import { serveArgv } from "../bench/support/server-config.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { goneWith, liveWith } from "../support/live-processes.ts"
import { waitFor } from "../support/wait.ts"

let fake: FakeProvider
let server: ServerProcess
let dir: string

/** `restart` needs approval and leaves a mark; `nap` sleeps, tagged so the test can find it. */
const toolsetYaml = (marks: string) => `toolsets:
  agui/serve:
    description: Tools for the AG-UI serve test
    tools:
      - name: t_echo
        description: Echoes its text
        command: "echo {{ text }}"
        parameters:
          text: { type: string }
      - name: restart
        description: Restart a service
        command: "echo {{ service }} >> ${marks}; echo restarted {{ service }}"
        parameters:
          service: { type: string }
        requires_approval: true
      - name: nap
        description: Sleeps
        command: "sleep {{ seconds }}"
        parameters:
          seconds: { type: string }
`

beforeAll(async () => {
  fake = await startFakeProvider()
  dir = mkdtempSync(join(tmpdir(), "dupin-agui-serve-"))
  writeFileSync(join(dir, "toolsets.yaml"), toolsetYaml(join(dir, "restarted.txt")))
  writeFileSync(
    join(dir, "config.yaml"),
    `model: openai/gpt-4o
api_key: test
api_base: ${fake.url}
custom_toolsets: [${join(dir, "toolsets.yaml")}]
toolsets:
  kubernetes/core: { enabled: false }
server:
  drain_delay: 0
`,
  )
  server = await startServerProcess(serveArgv(join(dir, "config.yaml")), { SVC_AUTH_TOKEN: "tok" })
}, 60_000)

afterAll(async () => {
  await server?.stop()
  await fake?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
}, 30_000)

const restarted = (): string[] => {
  const file = join(dir, "restarted.txt")
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []
}

function agentAt(path: string, text: string): HttpAgent {
  const agent = new HttpAgent({ url: `${server.url}${path}`, headers: { authorization: "Bearer tok" } })
  agent.addMessage({ id: "u1", role: "user", content: text })
  return agent
}

async function run(agent: HttpAgent, params: RunAgentParameters = {}): Promise<BaseEvent[]> {
  const events: BaseEvent[] = []
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) })
  return events
}

const finishedOutcome = (events: BaseEvent[]) =>
  (
    events.find((e) => e.type === "RUN_FINISHED") as {
      outcome?: { type: string; interrupts?: { id: string }[] }
    }
  )?.outcome

describe("`dupin serve` with @ag-ui/client's HttpAgent", () => {
  test("a tool call and its result, then the answer", async () => {
    fake.script(
      { content: "Echoing.", toolCalls: [{ id: "e_1", name: "t_echo", arguments: { text: "hello-agui" } }] },
      { content: "It said hello-agui." },
    )
    const agent = agentAt("/api/agui", "echo something")
    const events = await run(agent)
    const result = events.find((e) => e.type === "TOOL_CALL_RESULT") as {
      toolCallId?: string
      content?: string
    }
    expect(result.toolCallId).toBe("e_1")
    expect(result.content).toContain("hello-agui")
    expect(agent.messages.at(-1)?.content).toBe("It said hello-agui.")
  }, 60_000)

  test("at Headlamp's path: an approval interrupt, resumed approved, runs the tool; denied, does not", async () => {
    fake.script({ content: null, toolCalls: [{ id: "r_1", name: "restart", arguments: { service: "web" } }] })
    const approved = agentAt("/api/agui/chat", "restart web")
    expect(finishedOutcome(await run(approved))?.interrupts?.map((i) => i.id)).toEqual(["r_1"])
    expect(restarted()).toEqual([])
    fake.script({ content: "Restarted." })
    await run(approved, { resume: [{ interruptId: "r_1", status: "resolved", payload: { approved: true } }] })
    expect(restarted()).toEqual(["web"])
    expect(approved.messages.at(-1)?.content).toBe("Restarted.")

    fake.script({ content: null, toolCalls: [{ id: "r_2", name: "restart", arguments: { service: "db" } }] })
    const denied = agentAt("/api/agui/chat", "restart db")
    expect(finishedOutcome(await run(denied))?.type).toBe("interrupt")
    fake.script({ content: "Left db alone." })
    await run(denied, {
      resume: [{ interruptId: "r_2", status: "resolved", payload: { approved: false, feedback: "not now" } }],
    })
    expect(restarted()).toEqual(["web"])
    expect(denied.messages.at(-1)?.content).toBe("Left db alone.")
  }, 60_000)

  test("abort mid-run: the tool's process is gone", async () => {
    const tag = "31.4159"
    fake.script(
      { toolCalls: [{ id: "n_1", name: "nap", arguments: { seconds: tag } }] },
      { content: "never" },
    )
    const agent = agentAt("/api/agui", "sleep")
    const running = run(agent).catch(() => [])
    await waitFor(() => liveWith(`sleep ${tag}`).length > 0, { what: "the tool to start" })
    agent.abortRun()
    await running
    expect(await goneWith(`sleep ${tag}`)).toEqual([])
  }, 60_000)
})
