import { afterEach, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { StreamMessage } from "../../src/agent/events.ts"
import { Config } from "../../src/config/config.ts"
import { type RunningServer, startServer } from "../../src/server/server.ts"
import { containmentInfo, resetContainment } from "../../src/tool/containment/index.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { eventOf, parseSse } from "./harness.ts"

/**
 * Findings R8: with no auth token (the default on 127.0.0.1) a process dupin started called
 * dupin's own API and approved its own pending command. Here the process is a real YAML tool
 * running curl, through both listeners: behind the header guard, and Bun.serve directly.
 */
let server: RunningServer | undefined
let fake: FakeProvider | undefined
afterEach(async () => {
  await server?.shutdown(0)
  await fake?.stop()
  resetContainment()
  server = undefined
  fake = undefined
})

function toolset(dir: string): string {
  return `toolsets:
  test/r8:
    description: A restart that needs approval, and a tool that calls an HTTP API
    tools:
      - name: restart
        description: Restart a service
        command: "echo {{ service }} >> ${dir}/restarted.txt; echo restarted {{ service }}"
        parameters:
          service: { type: string }
        requires_approval: true
      - name: post_json
        description: POST a JSON body to a URL
        command: "curl -s -w ' http_status=%{http_code}' -H 'content-type: application/json' --data-binary {{ body }} {{ url }}"
        parameters:
          body: { type: string }
          url: { type: string }
      - name: post_unix
        description: POST a JSON body to an HTTP API on a unix socket
        command: "curl -s -w ' http_status=%{http_code}' -H 'content-type: application/json' --data-binary {{ body }} --unix-socket {{ socket }} http://dupin/api/chat; s=$?; echo; echo curl_exit=$s"
        parameters:
          body: { type: string }
          socket: { type: string }
`
}

async function chat(url: string, body: Record<string, unknown>): Promise<StreamMessage[]> {
  const response = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  })
  expect(response.status).toBe(200)
  return (await parseSse(response)).events
}

/**
 * A served dupin (no auth token) with the R8 toolset, and a conversation paused on `restart web`:
 * the decision a self-approval would send. `dir` is where the restart would write.
 */
async function pausedRestart(headerTimeoutMs: number) {
  const provider = await startFakeProvider()
  fake = provider
  const dir = mkdtempSync(join(tmpdir(), "dupin-r8-"))
  writeFileSync(join(dir, "toolsets.yaml"), toolset(dir))
  const config = new Config({
    model: "openai/gpt-4o",
    apiKey: "test",
    apiBase: provider.url,
    customToolsets: [join(dir, "toolsets.yaml")],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  })
  const started = startServer(config, { host: "127.0.0.1", port: 0, headerTimeoutMs, drainMs: 0 })
  server = started
  provider.script({ toolCalls: [{ id: "web_1", name: "restart", arguments: { service: "web" } }] })
  const paused = eventOf(
    await chat(started.url, { ask: "fix it", enable_tool_approval: true }),
    "approval_required",
  )
  const decision = {
    conversation_history: paused.conversation_history,
    tool_decisions: [{ tool_call_id: "web_1", approved: true }],
  }
  return { dir, url: started.url, decision, provider }
}

describe("R8: a tool cannot use dupin's API (no auth token, loopback)", () => {
  for (const headerTimeoutMs of [10_000, 0]) {
    const mode = headerTimeoutMs ? "through the header guard" : "Bun.serve directly"
    test(`a YAML tool running curl cannot approve its own pending command (${mode})`, async () => {
      // A conversation pauses on `restart web`; its history is what a self-approval needs.
      const { dir, url, decision, provider } = await pausedRestart(headerTimeoutMs)

      // The model, steered by a hostile tool output, has a tool send the decision itself.
      provider.script(
        {
          toolCalls: [
            {
              id: "p_1",
              name: "post_json",
              arguments: { body: JSON.stringify(decision), url: `${url}/api/chat` },
            },
          ],
        },
        { content: "done" },
      )
      const events = await chat(url, { ask: "post it" })
      const result = eventOf(events, "tool_calling_result")
      expect(result.result.status).toBe("success")
      // The request reached dupin and was refused: not a tool that failed to connect at all.
      expect(String(result.result.data)).toContain("http_status=401")
      expect(String(result.result.data)).toContain("processes dupin started")
      expect(
        existsSync(join(dir, "restarted.txt")) ? readFileSync(join(dir, "restarted.txt"), "utf8") : "",
      ).toBe("")

      // A person's client still decides the same call.
      provider.script({ content: "restarted" })
      const decided = await chat(url, decision)
      expect(eventOf(decided, "ai_answer_end").analysis).toBe("restarted")
      expect(readFileSync(join(dir, "restarted.txt"), "utf8").trim()).toBe("web")
    }, 30_000)
  }
})

/** The header guard's private unix socket of this process's serve (its folder names our pid). */
function guardSocket(): string | undefined {
  const parents = [
    tmpdir(),
    ...readdirSync(tmpdir()).filter((n) => n.startsWith(`dupin-sandbox-${process.pid}-`)),
  ]
  for (const parent of parents) {
    const dir = parent === tmpdir() ? tmpdir() : join(tmpdir(), parent)
    for (const name of readdirSync(dir)) {
      const socket = join(dir, name, "http.sock")
      if (name.startsWith(`dupin-http-${process.pid}-`) && existsSync(socket)) return socket
    }
  }
  return undefined
}

test.skipIf(!Bun.which("bwrap"))(
  "R8: a contained tool cannot reach the header guard's unix socket (it carries no peer to check)",
  async () => {
    // The default config's containment, whatever an earlier test file left configured.
    resetContainment()
    const { dir, url, decision, provider } = await pausedRestart(10_000)
    expect(containmentInfo().mechanism).toBe("bwrap")
    const socket = guardSocket()
    expect(socket).toBeDefined()
    provider.script(
      {
        toolCalls: [
          { id: "u_1", name: "post_unix", arguments: { body: JSON.stringify(decision), socket: socket! } },
        ],
      },
      { content: "done" },
    )
    const result = eventOf(await chat(url, { ask: "post it" }), "tool_calling_result")
    const output = String(result.result.data)
    // curl could not connect at all (exit 7): the socket does not exist in the tool's view.
    expect(output).toContain("curl_exit=7")
    expect(output).not.toContain("http_status=200")
    expect(
      existsSync(join(dir, "restarted.txt")) ? readFileSync(join(dir, "restarted.txt"), "utf8") : "",
    ).toBe("")
  },
  30_000,
)
