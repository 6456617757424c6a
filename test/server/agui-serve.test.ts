import { afterAll, expect, test } from "bun:test"
import { type BaseEvent, HttpAgent } from "@ag-ui/client"
import { type ServerProcess, startServerProcess } from "../bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "../bench/support/server-config.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

let fake: FakeProvider | undefined
let server: ServerProcess | undefined
afterAll(async () => {
  await server?.stop()
  await fake?.stop()
}, 30_000)

test("`dupin serve` speaks AG-UI to the published client: a tool call and its result, then the answer", async () => {
  fake = await startFakeProvider()
  const files = writeServeConfig(
    fake.url,
    // No drain delay: the test's server stops at once.
    "toolsets:\n  kubernetes/core: { enabled: false }\nserver:\n  drain_delay: 0\n",
  )
  server = await startServerProcess(serveArgv(files.configPath), { SVC_AUTH_TOKEN: "tok" })
  fake.script(
    { content: "Echoing.", toolCalls: [{ id: "e_1", name: "t_echo", arguments: { text: "hello-agui" } }] },
    { content: "It said hello-agui." },
  )
  const agent = new HttpAgent({ url: `${server.url}/api/agui`, headers: { authorization: "Bearer tok" } })
  agent.addMessage({ id: "u1", role: "user", content: "echo something" })
  const events: BaseEvent[] = []
  await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) })
  const result = events.find((e) => e.type === "TOOL_CALL_RESULT") as {
    toolCallId?: string
    content?: string
  }
  expect(result.toolCallId).toBe("e_1")
  expect(result.content).toContain("hello-agui")
  expect(agent.messages.at(-1)?.content).toBe("It said hello-agui.")
}, 60_000)
