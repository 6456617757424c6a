/**
 * A misbehaving MCP server (fixtures/fault-server.ts, written with the SDK's server package) over
 * stdio, through the real executor: timeouts and aborts cancel the MCP request, a crash mid-call
 * is a clean error followed by a restart, a flood is cut, a malformed schema skips only its tool,
 * a changed tool list is seen, and the server's environment holds nothing of dupin's.
 */
import { afterEach, expect, test } from "bun:test"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { setLogLevel, setLogSink } from "../../src/log.ts"
import { McpToolset, runningChildren, stopMcpServers } from "../../src/toolset/mcp/index.ts"
import { MAX_MESSAGE_BYTES } from "../../src/toolset/mcp/stdio-transport.ts"
import { startHarness } from "../server/harness.ts"
import { liveInGroup } from "../support/live-processes.ts"
import { waitFor } from "../support/wait.ts"
import { callTool, faultServer, mcpConfig, readyExecutor, starts, tempDir } from "./support.ts"

afterEach(async () => {
  await stopMcpServers()
})

test("the fault server's tools are offered with their schemas whole; the malformed one is skipped with a logged reason", async () => {
  const dir = tempDir()
  const lines: string[] = []
  const restore = setLogSink((line) => lines.push(line))
  const level = setLogLevel("WARN")
  try {
    const executor = await readyExecutor(mcpConfig({ fault: faultServer(dir) }))
    const toolset = executor.toolsets.find((t) => t.name === "fault") as McpToolset
    expect(toolset).toBeInstanceOf(McpToolset)
    expect(toolset.status).toBe("enabled")
    expect(toolset.deferFirst).toBe(true)
    expect(toolset.transport).toBe("stdio")
    const names = toolset.tools.map((t) => t.name)
    expect(names).toContain("echo")
    expect(names).not.toContain("broken")
    const echo = executor.schemas().find((s) => s.function.name === "echo")
    expect(echo?.function.parameters).toEqual({
      type: "object",
      properties: {
        message: { type: "string" },
        options: {
          type: "object",
          properties: { level: { type: "string", enum: ["low", "high"] } },
          required: ["level"],
        },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["message"],
    })
    const skipped = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "mcp server: tool skipped")
    expect(skipped).toMatchObject({ server: "fault", tool: "broken" })
    expect(skipped.reason).toContain("nonsense")
  } finally {
    setLogSink(restore)
    setLogLevel(level)
  }
})

test("arguments are validated against the server's schema before the call", async () => {
  const executor = await readyExecutor(mcpConfig({ fault: faultServer(tempDir()) }))
  const ok = await callTool(executor, "echo", { message: "hi", options: { level: "high" }, tags: ["a"] })
  expect(ok.status as string).toBe("success")
  expect(ok.dataText()).toBe('echo {"message":"hi","options":{"level":"high"},"tags":["a"]}')
  const bad = await callTool(executor, "echo", { message: "hi", options: { level: "extreme" } })
  expect(bad.status as string).toBe("error")
  expect(bad.error).toContain("Invalid arguments for echo")
  expect(bad.error).toContain("/options/level")
})

test("isError is status error with the server's text; images are described, not pasted", async () => {
  const executor = await readyExecutor(mcpConfig({ fault: faultServer(tempDir()) }))
  const failed = await callTool(executor, "fail", {})
  expect(failed.status as string).toBe("error")
  expect(failed.error).toBe("the database is on fire")
  const picture = await callTool(executor, "picture", {})
  expect(picture.status as string).toBe("success")
  expect(picture.dataText()).toBe("[image: image/png, 300 bytes]")
})

test("a hanging call times out at the server's timeout and the MCP request is cancelled", async () => {
  const dir = tempDir()
  const executor = await readyExecutor(
    mcpConfig({
      fault: faultServer(dir, {
        config: {
          command: process.execPath,
          args: [join(import.meta.dir, "fixtures/fault-server.ts"), dir],
          timeout: 1,
        },
      }),
    }),
  )
  const result = await callTool(executor, "hang", {})
  expect(result.status as string).toBe("error")
  expect(result.error).toContain("timed out after 1 s")
  await waitFor(() => existsSync(join(dir, "cancelled")), { what: "the server to see the cancellation" })
  // The connection is kept: the next call works on the same process.
  expect((await callTool(executor, "echo", { message: "again" })).status as string).toBe("success")
  expect(starts(dir)).toHaveLength(1)
})

test("the timeout is capped by limits.tool_timeout_max", async () => {
  const dir = tempDir()
  const config = mcpConfig(
    {
      fault: {
        config: {
          command: process.execPath,
          args: [join(import.meta.dir, "fixtures/fault-server.ts"), dir],
          timeout: 600,
        },
      },
    },
    { limits: { tool_timeout_max: 1, tool_timeout_default: 1 } },
  )
  const result = await callTool(await readyExecutor(config), "hang", {})
  expect(result.error).toContain("timed out after 1 s")
})

test("an aborted call (a client that hung up) cancels the MCP request", async () => {
  const dir = tempDir()
  const executor = await readyExecutor(mcpConfig({ fault: faultServer(dir) }))
  const controller = new AbortController()
  const call = callTool(executor, "hang", {}, controller.signal)
  await waitFor(() => existsSync(join(dir, "hanging")), { what: "the hang call to reach the server" })
  controller.abort()
  await expect(call).rejects.toThrow()
  await waitFor(() => existsSync(join(dir, "cancelled")), { what: "the server to see the cancellation" })
})

test("a server that crashes mid-call gives a clean error, is restarted, and the next call works", async () => {
  const dir = tempDir()
  const executor = await readyExecutor(mcpConfig({ fault: faultServer(dir) }))
  const first = starts(dir)[0]!
  const crashed = await callTool(executor, "crash", {})
  expect(crashed.status as string).toBe("error")
  expect(crashed.error).toContain("MCP server fault")
  await waitFor(() => starts(dir).length === 2, { what: "the restart" })
  expect(liveInGroup(first)).toEqual([])
  const next = await callTool(executor, "echo", { message: "after" })
  expect(next.status as string).toBe("success")
  expect(next.dataText()).toContain("after")
})

test("a flood of output is cut at the tool output cap with [TRUNCATED]", async () => {
  const executor = await readyExecutor(
    mcpConfig({ fault: faultServer(tempDir()) }, { limits: { tool_output_max_bytes: 10_000 } }),
  )
  const result = await callTool(executor, "flood", { bytes: 5_000_000 })
  expect(result.status as string).toBe("success")
  const text = result.dataText()
  expect(text.endsWith("[TRUNCATED]")).toBe(true)
  expect(text.length).toBeLessThan(10_100)
})

test("a tool list change is seen by the executor", async () => {
  const executor = await readyExecutor(mcpConfig({ fault: faultServer(tempDir()) }))
  expect(executor.schemas().some((s) => s.function.name === "late_tool")).toBe(false)
  expect((await callTool(executor, "add_tool", {})).status as string).toBe("success")
  await waitFor(() => executor.schemas().some((s) => s.function.name === "late_tool"), {
    what: "late_tool to be offered",
    timeoutMs: 4000,
  })
  const late = await callTool(executor, "late_tool", {})
  expect(late.dataText()).toBe("late tool ran")
})

test("the stdio server's environment is PATH, HOME, LANG and its own env: no provider key, no SVC_*", async () => {
  const dir = tempDir()
  const config = mcpConfig(
    {
      fault: {
        config: {
          command: process.execPath,
          args: [join(import.meta.dir, "fixtures/fault-server.ts"), dir],
          env: { LOG_LEVEL: "info" },
        },
      },
    },
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: dir,
        LANG: "C.UTF-8",
        OPENAI_API_KEY: "sk-provider-secret",
        SVC_AUTH_TOKEN: "svc-secret",
        KUBECONFIG: "/etc/kube",
      },
    },
  )
  const result = await callTool(await readyExecutor(config), "report_env", {})
  const env = JSON.parse(result.dataText()) as Record<string, string>
  const names = Object.keys(env).filter(
    (n) => n !== "TMPDIR" && !n.startsWith("KUBECACHE") && !n.startsWith("HELM_CACHE"),
  )
  expect(names.sort()).toEqual(["HOME", "LANG", "LOG_LEVEL", "PATH"])
  expect(result.dataText()).not.toContain("secret")
})

test("an unreachable server marks its toolset failed with the reason; the rest work", async () => {
  const executor = await readyExecutor(
    mcpConfig({
      gone: { config: { command: "/nonexistent/mcp-server" } },
      fault: faultServer(tempDir()),
    }),
  )
  const gone = executor.toolsets.find((t) => t.name === "gone")
  expect(gone?.status).toBe("failed")
  expect(gone?.error).toContain("/nonexistent/mcp-server: command not found")
  expect((await callTool(executor, "echo", { message: "x" })).status as string).toBe("success")
})

test("stopping the servers leaves no process behind", async () => {
  const dir = tempDir()
  await readyExecutor(mcpConfig({ fault: faultServer(dir) }))
  const pid = starts(dir)[0]!
  expect(liveInGroup(pid).length).toBeGreaterThan(0)
  await stopMcpServers()
  expect(liveInGroup(pid)).toEqual([])
  expect(runningChildren()).not.toContain(pid)
})

test("an API client that hangs up mid-call cancels the MCP request", async () => {
  const dir = tempDir()
  const h = await startHarness({ init: { mcpServers: { fault: faultServer(dir) } } })
  try {
    h.fake.script({ toolCalls: [{ id: "c1", name: "hang", arguments: {} }] })
    const controller = new AbortController()
    const request = h.post({ ask: "hang" }, {}, controller.signal).catch(() => undefined)
    await waitFor(() => existsSync(join(dir, "hanging")), { what: "the hang call to reach the server" })
    controller.abort()
    await request
    await waitFor(() => existsSync(join(dir, "cancelled")), { what: "the server to see the cancellation" })
    await waitFor(() => h.runs.size === 0, { what: "the run to end" })
  } finally {
    await h.stop()
  }
}, 20_000)

test("a secret of the server's env or headers never shows in its failure reason (a server that prints it)", async () => {
  const executor = await readyExecutor(
    mcpConfig({
      leaky: {
        config: {
          command: "/bin/sh",
          args: ["-c", 'echo "starting with token $GH_TOKEN" >&2; exit 1'],
          env: { GH_TOKEN: "ghp_leaky_secret_123" },
        },
      },
    }),
  )
  const leaky = executor.toolsets.find((t) => t.name === "leaky")
  expect(leaky?.status).toBe("failed")
  expect(leaky?.error).toContain("starting with token [REDACTED]")
  expect(leaky?.error).not.toContain("ghp_leaky_secret_123")
})

test("a message past the stdio read cap ends the connection instead of growing memory; the next call works", async () => {
  const dir = tempDir()
  const executor = await readyExecutor(mcpConfig({ fault: faultServer(dir) }))
  const result = await callTool(executor, "flood", { bytes: MAX_MESSAGE_BYTES + 1024 })
  expect(result.status as string).toBe("error")
  expect(result.error).toContain("MCP server fault")
  await waitFor(() => starts(dir).length === 2, { what: "the restart" })
  expect((await callTool(executor, "echo", { message: "after" })).status as string).toBe("success")
}, 30_000)

test("a server that was down is tried again in the background by a later run's check, and then offered", async () => {
  const dir = tempDir()
  const marker = join(dir, "up")
  const script = `test -e ${marker} && exec ${process.execPath} ${join(import.meta.dir, "fixtures/fault-server.ts")} ${dir}; exit 1`
  const executor = await readyExecutor(
    mcpConfig({ late: { config: { command: "/bin/sh", args: ["-c", script] } } }),
  )
  const late = executor.toolsets.find((t) => t.name === "late") as McpToolset
  expect(late.status).toBe("failed")
  // The executor caches what it offers once every toolset was checked.
  expect(executor.schemas().some((s) => s.function.name === "echo")).toBe(false)
  const before = McpToolset.retryFailedAfterMs
  McpToolset.retryFailedAfterMs = 0
  try {
    writeFileSync(marker, "")
    await executor.ensureReady()
    await waitFor(() => late.status === "enabled", { what: "the retry to connect", timeoutMs: 8000 })
    expect(executor.schemas().some((s) => s.function.name === "echo")).toBe(true)
    expect((await callTool(executor, "echo", { message: "back" })).status as string).toBe("success")
  } finally {
    McpToolset.retryFailedAfterMs = before
  }
}, 20_000)
