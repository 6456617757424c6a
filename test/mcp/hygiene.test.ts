/**
 * No stdio MCP server outlives dupin: after `dupin ask` ends (normally, Ctrl+C, SIGTERM), after a
 * library script dies of an uncaught error, and after `serve` shuts down, the server's process
 * group is empty. Real processes: the fault server's pid comes from its marker file. Also what
 * `dupin toolsets` and `/tools` show of a server (and never: its secrets).
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { existsSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { toolsView } from "../../src/cli/ask/views.ts"
import { stopMcpServers } from "../../src/toolset/mcp/index.ts"
import { startServerProcess } from "../bench/support/processes.ts"
import { cliEnv, MAIN } from "../cli/support.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { liveInGroup } from "../support/live-processes.ts"
import { waitFor } from "../support/wait.ts"
import { FAULT_SERVER, faultServer, mcpConfig, readyExecutor, starts, tempDir } from "./support.ts"

let fake: FakeProvider
beforeAll(async () => {
  fake = await startFakeProvider()
})
afterAll(async () => {
  await fake.stop()
})

/**
 * A config file running the fault server (markers in `dir`) with containment off (markers
 * written), stubborn: it does not end with its stdin and leaves a grandchild, so only dupin
 * killing its process group ends it.
 */
function configFile(dir: string): string {
  const file = join(dir, "dupin.yaml")
  writeFileSync(
    file,
    [
      "security:",
      "  containment: off",
      "mcp_servers:",
      "  fault:",
      "    config:",
      `      command: ${process.execPath}`,
      `      args: [${JSON.stringify(FAULT_SERVER)}, ${JSON.stringify(dir)}, stubborn]`,
      "",
    ].join("\n"),
  )
  return file
}

/** `dupin ask` whose model calls the fault server's `hang` tool; resolves once the call hangs. */
async function askHanging(dir: string) {
  // Only the hang call: the run is stopped during it.
  fake.script({ toolCalls: [{ id: "c1", name: "hang", arguments: {} }] })
  const proc = Bun.spawn(
    [process.execPath, MAIN, "ask", "--config", configFile(dir), "--no-interactive", "hang"],
    {
      env: cliEnv(fake),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    },
  )
  await waitFor(() => existsSync(join(dir, "hanging")), {
    what: "the hang call to reach the server",
    timeoutMs: 30_000,
  })
  const pid = starts(dir)[0]!
  expect(liveInGroup(pid).length).toBeGreaterThan(0)
  return { proc, pid }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  test(`dupin ask stopped by ${signal} mid-call leaves no MCP server behind`, async () => {
    const dir = tempDir()
    const { proc, pid } = await askHanging(dir)
    proc.kill(signal)
    await proc.exited
    expect(liveInGroup(pid)).toEqual([])
  }, 40_000)
}

test("a library script that dies of an uncaught error leaves no MCP server behind", async () => {
  const dir = tempDir()
  const script = join(dir, "script.ts")
  const src = resolve(import.meta.dir, "../../src")
  writeFileSync(
    script,
    `import { Config } from ${JSON.stringify(`${src}/config/config.ts`)}
import { createRuntime } from ${JSON.stringify(`${src}/runtime/runtime.ts`)}
const config = new Config({
  model: "openai/gpt-4o",
  apiKey: "test",
  env: { PATH: process.env.PATH ?? "" },
  security: { containment: "off" },
  mcpServers: { fault: { config: { command: process.execPath, args: [${JSON.stringify(FAULT_SERVER)}, ${JSON.stringify(dir)}, "stubborn"] } } },
})
await createRuntime(config).executor.ensureReady()
throw new Error("boom")
`,
  )
  const proc = Bun.spawn([process.execPath, script], { stdout: "ignore", stderr: "pipe", env: cliEnv() })
  const stderr = await new Response(proc.stderr).text()
  expect(await proc.exited).not.toBe(0)
  expect(stderr).toContain("boom")
  const pid = starts(dir)[0]!
  expect(pid).toBeGreaterThan(0)
  expect(liveInGroup(pid)).toEqual([])
}, 30_000)

test("serve shut down by SIGTERM leaves no MCP server behind", async () => {
  const dir = tempDir()
  const server = await startServerProcess(
    [process.execPath, MAIN, "serve", "--config", configFile(dir), "--port", "0"],
    cliEnv(fake),
  )
  // The prerequisites run in the background after listen: the server starts then.
  await waitFor(() => starts(dir).length > 0, { what: "the MCP server to start", timeoutMs: 30_000 })
  const pid = starts(dir)[0]!
  expect(liveInGroup(pid).length).toBeGreaterThan(0)
  await server.stop("SIGTERM")
  expect(liveInGroup(pid)).toEqual([])
}, 40_000)

test("dupin toolsets list --json shows each server's transport and protocol version, and no env, header or URL secret", async () => {
  const dir = tempDir()
  const file = join(dir, "dupin.yaml")
  writeFileSync(
    file,
    [
      "security:",
      "  containment: off",
      "mcp_servers:",
      "  fault:",
      "    config:",
      `      command: ${process.execPath}`,
      `      args: [${JSON.stringify(FAULT_SERVER)}, ${JSON.stringify(dir)}]`,
      "      env: { API_TOKEN: env-secret-5c1e }",
      "  down:",
      "    config:",
      "      url: http://127.0.0.1:9/mcp?key=query-secret-77",
      "      headers: { Authorization: Bearer header-secret-3b2a }",
      "",
    ].join("\n"),
  )
  const proc = Bun.spawn([process.execPath, MAIN, "toolsets", "list", "--json", "--config", file], {
    env: cliEnv(fake),
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ])
  await proc.exited
  const rows = JSON.parse(stdout) as Array<Record<string, unknown>>
  expect(rows.find((r) => r.name === "fault")).toMatchObject({
    status: "enabled",
    transport: "stdio",
    protocol_version: "2025-11-25",
  })
  expect(rows.find((r) => r.name === "down")).toMatchObject({ status: "failed", protocol_version: null })
  for (const secret of ["env-secret-5c1e", "query-secret-77", "header-secret-3b2a"]) {
    expect(stdout).not.toContain(secret)
    expect(stderr).not.toContain(secret)
  }
}, 40_000)

test("the CLI's /tools shows each server with its status and transport, and its tools", async () => {
  const executor = await readyExecutor(
    mcpConfig({ fault: faultServer(tempDir()), gone: { config: { command: "/nonexistent/mcp-server" } } }),
  )
  try {
    const view = toolsView(executor)
    expect(view).toMatch(/fault\s+enabled \(mcp stdio\)/)
    expect(view).toMatch(/gone\s+failed \(mcp stdio\)/)
    expect(view).toContain("/nonexistent/mcp-server: command not found")
    // Each tool with its description and its toolset (issue 21 item 7).
    expect(view).toMatch(/^\s+echo\s+Echo a message with options \[fault\]$/m)
  } finally {
    await stopMcpServers()
  }
})
