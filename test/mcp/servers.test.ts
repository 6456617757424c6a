/**
 * Third-party MCP servers from npm (server-everything over stdio, Streamable HTTP and the legacy
 * SSE transport; server-filesystem over stdio), driven through the real agent loop with the fake
 * provider: over HTTP (JSON and SSE), the CLI and the library.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Config } from "../../src/config/config.ts"
import { setLogLevel, setLogSink } from "../../src/log.ts"
import { createRuntime } from "../../src/runtime/runtime.ts"
import { type McpToolset, stopMcpServers } from "../../src/toolset/mcp/index.ts"
import { cliEnv, runCli } from "../cli/support.ts"
import { startHarness } from "../server/harness.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { waitFor } from "../support/wait.ts"
import {
  EVERYTHING,
  FILESYSTEM,
  freePort,
  type HttpServer,
  MODERN_SERVER,
  readyExecutor,
  startEverythingHttp,
  tempDir,
} from "./support.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

const everythingStdio = { config: { command: process.execPath, args: [EVERYTHING, "stdio"] } }

let fake: FakeProvider
beforeAll(async () => {
  fake = await startFakeProvider()
})
afterAll(async () => {
  await fake.stop()
})
afterEach(async () => {
  await stopMcpServers()
})

/** The tool message the model got back for the call, from the last request to the provider. */
function toolMessage(): string {
  const messages = (fake.requests.at(-1)?.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  return String(messages.findLast((m) => m.role === "tool")?.content ?? "")
}

test("library: server-everything over stdio, get-sum called by the model through the loop", async () => {
  const config = new Config({
    model: "openai/gpt-4o",
    apiBase: fake.url,
    apiKey: "test",
    env: { PATH: process.env.PATH ?? "" },
    mcpServers: { everything: everythingStdio },
  })
  fake.script(
    { toolCalls: [{ id: "c1", name: "get-sum", arguments: { a: 2, b: 3 } }] },
    { content: "It is 5." },
  )
  const result = await createRuntime(config)
    .engine()
    .call([{ role: "user", content: "What is 2+3?" }])
  expect(result.result).toBe("It is 5.")
  expect(result.toolCalls?.[0]?.result.status as string).toBe("success")
  expect(String(result.toolCalls?.[0]?.result.data)).toContain("5")
  expect(toolMessage()).toContain("The sum of 2 and 3 is 5")
  // The input schema reached the model whole.
  const tools = (fake.requests.at(-1)?.body?.tools ?? []) as Array<{
    function: { name: string; parameters: unknown }
  }>
  expect(tools.find((t) => t.function.name === "get-sum")?.function.parameters).toMatchObject({
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  })
})

test("library: server-filesystem over stdio reads a file in its allowed directory", async () => {
  const dir = tempDir()
  writeFileSync(join(dir, "app.log"), "ERROR disk full on /var\n")
  const config = new Config({
    model: "openai/gpt-4o",
    apiBase: fake.url,
    apiKey: "test",
    env: { PATH: process.env.PATH ?? "" },
    mcpServers: { files: { config: { command: process.execPath, args: [FILESYSTEM, dir] } } },
  })
  const executor = await readyExecutor(config)
  const files = executor.toolsets.find((t) => t.name === "files")
  expect(files?.status).toBe("enabled")
  expect(files?.tools.map((t) => t.name)).toContain("read_text_file")
  fake.script(
    { toolCalls: [{ id: "c1", name: "read_text_file", arguments: { path: join(dir, "app.log") } }] },
    { content: "The disk is full." },
  )
  const result = await createRuntime(config)
    .engine()
    .call([{ role: "user", content: "Why?" }])
  expect(result.result).toBe("The disk is full.")
  expect(toolMessage()).toContain("ERROR disk full on /var")
})

describe("over HTTP", () => {
  let http: HttpServer
  beforeAll(async () => {
    http = await startEverythingHttp("streamableHttp")
  })
  afterAll(async () => {
    await http.stop()
  })

  test("the API (JSON and SSE) with server-everything over Streamable HTTP; /api/info shows the server", async () => {
    const secret = "hdr-secret-4f1d2e"
    const lines: string[] = []
    const restore = setLogSink((line) => lines.push(line))
    const level = setLogLevel("DEBUG")
    const h = await startHarness({
      init: {
        mcpServers: { everything: { config: { url: http.url, headers: { "X-Api-Key": secret } } } },
      },
    })
    try {
      h.fake.script(
        { toolCalls: [{ id: "c1", name: "echo", arguments: { message: "over http" } }] },
        { content: "Done." },
      )
      const body = (await (await h.post({ ask: "echo something" })).json()) as Body
      expect(body.analysis).toBe("Done.")
      expect(body.tool_calls[0].result).toMatchObject({ status: "success", data: "Echo: over http" })

      h.fake.script(
        { toolCalls: [{ id: "c2", name: "get-sum", arguments: { a: 40, b: 2 } }] },
        { content: "42." },
      )
      const streamed = await h.stream({ ask: "sum" })
      const result = streamed.events.find((e) => e.event === "tool_calling_result") as
        | { data: { result: { status: string; data: unknown } } }
        | undefined
      expect(result?.data.result.status).toBe("success")
      expect(String(result?.data.result.data)).toContain("42")

      const infoText = await (await fetch(`${h.url}/api/info`)).text()
      const info = JSON.parse(infoText) as { toolsets: Array<Record<string, unknown>> }
      const entry = info.toolsets.find((t) => t.name === "everything")
      expect(entry).toMatchObject({
        status: "enabled",
        transport: "streamable-http",
        protocol_version: "2025-11-25",
      })
      expect(entry?.tools).toContain("get-sum")
      // The header's value never shows: not in /api/info, not in any log line.
      expect(infoText).not.toContain(secret)
      expect(lines.join("\n")).not.toContain(secret)
    } finally {
      setLogSink(restore)
      setLogLevel(level)
      await h.stop()
    }
  })

  test("requires_approval pauses the HTTP run like a YAML tool's approval", async () => {
    const h = await startHarness({
      init: { mcpServers: { everything: { requires_approval: ["get-sum"], config: { url: http.url } } } },
    })
    try {
      h.fake.script({ toolCalls: [{ id: "c1", name: "get-sum", arguments: { a: 1, b: 1 } }] })
      const paused = (await (await h.post({ ask: "sum", enable_tool_approval: true })).json()) as Body
      expect(paused.requires_approval).toBe(true)
      expect(paused.pending_approvals).toHaveLength(1)
      expect(paused.pending_approvals[0]).toMatchObject({ tool_name: "get-sum" })
    } finally {
      await h.stop()
    }
  })
})

test("an HTTP server that restarts (its sessions forgotten) is reconnected: the next call works", async () => {
  let server = await startEverythingHttp("streamableHttp")
  try {
    const executor = await readyExecutor(
      new Config({ env: {}, mcpServers: { e: { config: { url: server.url } } } }),
    )
    const echo = () =>
      executor.run(
        executor.prepare({
          id: "x",
          type: "function",
          function: { name: "echo", arguments: '{"message":"x"}' },
        }),
        new AbortController().signal,
      )
    expect((await echo()).dataText()).toBe("Echo: x")
    const port = Number(new URL(server.url).port)
    await server.stop()
    server = await startEverythingHttp("streamableHttp", port)
    const again = await echo()
    expect(again.error).toBeNull()
    expect(again.dataText()).toBe("Echo: x")
  } finally {
    await server.stop()
  }
})

test("the protocol version is negotiated: a 2026-07-28 server gets it over stdio and HTTP, an older server the 2025 handshake", async () => {
  const port = await freePort()
  const modernHttp = Bun.spawn([process.execPath, MODERN_SERVER, "http", String(port)], {
    stdout: "ignore",
    stderr: "ignore",
  })
  try {
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/`).then(
          () => true,
          () => false,
        ),
      {
        what: "the modern HTTP server",
        intervalMs: 50,
      },
    )
    const executor = await readyExecutor(
      new Config({
        env: { PATH: process.env.PATH ?? "" },
        mcpServers: {
          stdio: { config: { command: process.execPath, args: [MODERN_SERVER, "stdio"] } },
          http: { config: { url: `http://127.0.0.1:${port}/mcp` } },
          old: everythingStdio,
        },
      }),
    )
    const version = (name: string) =>
      (executor.toolsets.find((t) => t.name === name) as McpToolset).connection.protocolVersion
    expect(executor.toolsets.find((t) => t.name === "http")?.error).toBeUndefined()
    expect(version("stdio")).toBe("2026-07-28")
    expect(version("http")).toBe("2026-07-28")
    expect(version("old")).toBe("2025-11-25")
    const era = await executor.run(
      executor.prepare({ id: "x", type: "function", function: { name: "era", arguments: "{}" } }),
      new AbortController().signal,
    )
    expect(era.dataText()).toBe("era modern")
  } finally {
    modernHttp.kill()
    await modernHttp.exited
  }
})

test("a url without mode falls back to the legacy SSE transport", async () => {
  const sse = await startEverythingHttp("sse")
  try {
    const config = new Config({ env: {}, mcpServers: { legacy: { config: { url: sse.url } } } })
    const executor = await readyExecutor(config)
    const legacy = executor.toolsets.find((t) => t.name === "legacy") as McpToolset
    expect(legacy.error).toBeUndefined()
    expect(legacy.status).toBe("enabled")
    expect(legacy.transport).toBe("sse")
    const echo = await executor.run(
      executor.prepare({
        id: "x",
        type: "function",
        function: { name: "echo", arguments: '{"message":"sse"}' },
      }),
      new AbortController().signal,
    )
    expect(echo.dataText()).toBe("Echo: sse")
  } finally {
    await sse.stop()
  }
})

test("an unreachable HTTP server is a failed toolset whose reason holds no header value", async () => {
  const secret = "Bearer unreachable-secret-9a8b"
  const config = new Config({
    env: {},
    mcpServers: {
      down: {
        config: { url: "http://127.0.0.1:9/mcp?api_key=query-secret-77", headers: { Authorization: secret } },
      },
    },
  })
  const down = (await readyExecutor(config)).toolsets.find((t) => t.name === "down")
  expect(down?.status).toBe("failed")
  expect(down?.error).toContain("MCP server down")
  expect(down?.error).not.toContain("unreachable-secret")
  expect(down?.error).not.toContain("query-secret-77")
})

test("the CLI: dupin ask calls a stdio server's tool and exits leaving no server behind", async () => {
  const dir = tempDir()
  const configFile = join(dir, "dupin.yaml")
  writeFileSync(
    configFile,
    `mcp_servers:\n  everything:\n    config:\n      command: ${process.execPath}\n      args: [${JSON.stringify(EVERYTHING)}, stdio]\n`,
  )
  fake.script(
    { toolCalls: [{ id: "c1", name: "get-sum", arguments: { a: 20, b: 22 } }] },
    { content: "Forty-two." },
  )
  const run = await runCli(["ask", "--config", configFile, "--no-interactive", "what is 20+22?"], {
    env: cliEnv(fake),
  })
  expect(run.stderr).not.toContain("failed")
  expect(run.code).toBe(0)
  expect(run.stdout).toContain("Forty-two.")
  expect(toolMessage()).toContain("The sum of 20 and 22 is 42")
  const left = Bun.spawnSync(["pgrep", "-f", `${EVERYTHING} stdio`])
    .stdout.toString()
    .trim()
  expect(left).toBe("")
}, 30_000)

test("library: requires_approval: true asks the approval callback; a refusal does not run the tool", async () => {
  const config = new Config({
    model: "openai/gpt-4o",
    apiBase: fake.url,
    apiKey: "test",
    env: { PATH: process.env.PATH ?? "" },
    mcpServers: { everything: { ...everythingStdio, requires_approval: true } },
  })
  const asked: string[] = []
  fake.script(
    { toolCalls: [{ id: "c1", name: "get-sum", arguments: { a: 1, b: 2 } }] },
    { content: "Refused." },
  )
  const result = await createRuntime(config)
    .engine()
    .call([{ role: "user", content: "sum" }], {
      approvalCallback: (pending) => {
        asked.push(pending.tool_name)
        return { approved: false, feedback: "not now" }
      },
    })
  expect(asked).toEqual(["get-sum"])
  expect(result.result).toBe("Refused.")
  expect(toolMessage()).not.toContain("The sum of")
})

test.skipIf(Bun.which("bwrap") === null || process.platform !== "linux")(
  "the CLI runs a stdio server under the tool containment: it cannot read dupin's config file",
  async () => {
    const dir = tempDir()
    const configFile = join(dir, "dupin.yaml")
    writeFileSync(
      configFile,
      `# marker-7c1e: only dupin may read this file\nsecurity:\n  containment: required\nmcp_servers:\n  files:\n    config:\n      command: ${process.execPath}\n      args: [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(dir)}]\n`,
    )
    writeFileSync(join(dir, "notes.txt"), "readable notes\n")
    fake.script(
      {
        toolCalls: [
          { id: "c1", name: "read_text_file", arguments: { path: configFile } },
          { id: "c2", name: "read_text_file", arguments: { path: join(dir, "notes.txt") } },
        ],
      },
      { content: "Read." },
    )
    const run = await runCli(["ask", "--config", configFile, "--no-interactive", "read them"], {
      env: cliEnv(fake),
    })
    expect(run.code).toBe(0)
    const messages = (fake.requests.at(-1)?.body?.messages ?? []) as Array<{ role: string; content: unknown }>
    const tools = messages.filter((m) => m.role === "tool").map((m) => String(m.content))
    expect(tools.join("\n")).toContain("readable notes")
    expect(tools.join("\n")).not.toContain("marker-7c1e")
  },
  30_000,
)

test("a library script that used an MCP server exits by itself: an idle server holds no event loop", async () => {
  const dir = tempDir()
  const script = join(dir, "uses-mcp.ts")
  writeFileSync(
    script,
    `import { Config } from ${JSON.stringify(join(import.meta.dir, "../../src/core/config.ts"))}
const config = new Config({ env: { PATH: process.env.PATH }, security: { containment: "off" }, mcpServers: { e: { config: { command: process.execPath, args: [${JSON.stringify(EVERYTHING)}] } } } })
const executor = config.toolExecutor()
await executor.ensureReady()
console.log(executor.toolsets.find((t) => t.name === "e")?.status)
`,
  )
  const proc = Bun.spawn([process.execPath, script], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "" },
  })
  const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000)
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
  clearTimeout(timer)
  expect(stdout.trim()).toBe("enabled")
  expect(code).toBe(0)
}, 20_000)
