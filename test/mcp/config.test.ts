/**
 * `mcp_servers:` as CONTRACT §8 writes it, in the config file and in custom toolset files.
 */
import { afterEach, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Config } from "../../src/config/config.ts"
import { setLogLevel, setLogSink } from "../../src/log.ts"
import { redact } from "../../src/redact.ts"
import { createRuntime } from "../../src/runtime/runtime.ts"
import { parseMcpServer, stopMcpServers } from "../../src/toolset/mcp/index.ts"
import { FAULT_SERVER, mcpConfig, readyExecutor, tempDir } from "./support.ts"

afterEach(async () => {
  await stopMcpServers()
})

test("an unknown key is refused with the file and key path", () => {
  expect(() =>
    parseMcpServer("grafana", { config: { url: "http://x/mcp", tiemout: 5 } }, "dupin.yaml", {}),
  ).toThrow("dupin.yaml: mcp_servers.grafana.config.tiemout: unknown key")
  expect(() => parseMcpServer("grafana", { requires_aproval: true }, "dupin.yaml", {})).toThrow(
    "dupin.yaml: mcp_servers.grafana.requires_aproval: unknown key",
  )
})

test("mode, url and command must agree", () => {
  expect(() => parseMcpServer("a", { config: {} }, "f.yaml", {})).toThrow(
    "give url (an HTTP server) or command",
  )
  expect(() => parseMcpServer("a", { config: { mode: "stdio", url: "http://x/" } }, "f.yaml", {})).toThrow(
    "a stdio server takes command, not url",
  )
  expect(() => parseMcpServer("a", { config: { mode: "sse", command: "x" } }, "f.yaml", {})).toThrow(
    "command, args and env are for stdio servers",
  )
  expect(() => parseMcpServer("a", { config: { url: "ftp://x/" } }, "f.yaml", {})).toThrow(
    "http:// or https://",
  )
  expect(parseMcpServer("a", { config: { url: "http://x/mcp" } }, "f.yaml", {}).transport.kind).toBe("http")
  expect(parseMcpServer("a", { config: { command: "srv" } }, "f.yaml", {}).transport.kind).toBe("stdio")
  expect(
    parseMcpServer("a", { config: { mode: "sse", url: "http://x/sse" } }, "f.yaml", {}).transport.kind,
  ).toBe("sse")
})

test("HolmesGPT's top-level url moves into config.url with one warning", () => {
  const lines: string[] = []
  const restore = setLogSink((line) => lines.push(line))
  const level = setLogLevel("WARN")
  try {
    const spec = parseMcpServer(
      "old",
      { url: "http://127.0.0.1:9/sse", config: { mode: "sse" } },
      "f.yaml",
      {},
    )
    expect(spec.transport).toMatchObject({ kind: "sse" })
    expect(spec.transport.kind !== "stdio" && spec.transport.url.href).toBe("http://127.0.0.1:9/sse")
  } finally {
    setLogSink(restore)
    setLogLevel(level)
  }
  expect(lines).toHaveLength(1)
  expect(lines[0]).toContain("config.url")
})

test("HolmesGPT files load unchanged: a top-level url is SSE at <url>/sse, config.type is mode, toolset keys are accepted", () => {
  const level = setLogLevel("ERROR")
  try {
    const legacy = parseMcpServer(
      "old",
      { url: "http://127.0.0.1:9", description: "d", icon_url: "x", tags: ["obs"], docs_url: "https://docs" },
      "f.yaml",
      {},
    )
    expect(legacy.transport).toMatchObject({ kind: "sse" })
    expect(legacy.transport.kind !== "stdio" && legacy.transport.url.href).toBe("http://127.0.0.1:9/sse")
    expect(legacy).toMatchObject({ tags: ["obs"], docsUrl: "https://docs" })
    const stdio = parseMcpServer(
      "s",
      { config: { type: "stdio", command: "srv", args: ["a"] } },
      "f.yaml",
      {},
    )
    expect(stdio.transport).toMatchObject({ kind: "stdio", command: "srv", args: ["a"] })
    expect(() =>
      parseMcpServer("s", { config: { type: "stdio", mode: "sse", url: "http://x/" } }, "f", {}),
    ).toThrow("f: mcp_servers.s.config.type: says stdio but config.mode says sse; keep only mode")
  } finally {
    setLogLevel(level)
  }
})

test("{{ env.NAME }} is expanded in headers, args and env; a missing variable names the key", () => {
  const env = { TOKEN: "t0k", DIR: "/var/log", LEVEL: "debug" }
  const http = parseMcpServer(
    "g",
    { config: { url: "http://x/mcp", headers: { Authorization: "Bearer {{ env.TOKEN }}" } } },
    "f",
    env,
  )
  expect(http.transport.kind !== "stdio" && http.transport.headers).toEqual({ Authorization: "Bearer t0k" })
  const stdio = parseMcpServer(
    "s",
    { config: { command: "srv", args: ["{{ env.DIR }}"], env: { L: "{{env.LEVEL}}" } } },
    "f",
    env,
  )
  expect(stdio.transport).toMatchObject({ args: ["/var/log"], env: { L: "debug" } })
  expect(() =>
    parseMcpServer("g", { config: { command: "srv", args: ["{{ env.NOPE }}"] } }, "f", env),
  ).toThrow("mcp_servers.g.config.args[0] uses {{ env.NOPE }}, but NOPE is not set.")
  // A server switched off does not need its variables.
  expect(
    parseMcpServer("g", { enabled: false, config: { command: "srv", args: ["{{ env.NOPE }}"] } }, "f", env)
      .enabled,
  ).toBe(false)
})

test("a custom toolset file's mcp_servers become toolsets after the config file's", async () => {
  const dir = tempDir()
  const file = join(dir, "servers.yaml")
  writeFileSync(
    file,
    `mcp_servers:\n  fromfile:\n    description: From a file\n    config:\n      command: ${process.execPath}\n      args: [${JSON.stringify(FAULT_SERVER)}, ${JSON.stringify(dir)}]\n`,
  )
  const config = mcpConfig(
    { first: { config: { command: process.execPath, args: [FAULT_SERVER, dir] } } },
    { customToolsets: [file] },
  )
  const executor = await readyExecutor(config)
  const names = executor.toolsets.map((t) => t.name)
  expect(names.indexOf("first")).toBeLessThan(names.indexOf("fromfile"))
  const fromFile = executor.toolsets.find((t) => t.name === "fromfile")
  expect(fromFile?.status).toBe("enabled")
  expect(fromFile?.description).toBe("From a file")
  // The same tools a second time: the later server's take the server-prefixed names.
  expect(fromFile?.tools.map((t) => t.name)).toContain("fromfile__echo")
})

test("a server named twice, or like a built-in toolset, is refused naming both", () => {
  const dir = tempDir()
  const file = join(dir, "servers.yaml")
  writeFileSync(file, "mcp_servers:\n  twin:\n    config:\n      command: srv\n")
  const config = new Config({
    env: {},
    mcpServers: { twin: { config: { command: "srv" } } },
    customToolsets: [file],
  })
  expect(() => createRuntime(config).executor).toThrow(`${file}: mcp_servers.twin: already defined in config`)
  const clash = new Config({ env: {}, mcpServers: { "linux/host": { config: { command: "srv" } } } })
  expect(() => createRuntime(clash).executor).toThrow(
    "mcp_servers.linux/host: a toolset named linux/host already exists",
  )
})

test("allowed_tools offers only those tools; toolsets.<name>.enabled: false switches a server off", async () => {
  const dir = tempDir()
  const executor = await readyExecutor(
    mcpConfig(
      {
        some: {
          allowed_tools: ["echo", "fail"],
          config: { command: process.execPath, args: [FAULT_SERVER, dir] },
        },
        off: { config: { command: process.execPath, args: [FAULT_SERVER, dir] } },
      },
      { toolsets: { off: { enabled: false } } },
    ),
  )
  expect(executor.toolsets.find((t) => t.name === "some")?.tools.map((t) => t.name)).toEqual(["echo", "fail"])
  expect(executor.toolsets.find((t) => t.name === "off")?.status).toBe("disabled")
})

// Issue 21 item 3: the stdio form of HolmesGPT's remote-MCP page was refused, and config.type
// warned at every start.
test("HolmesGPT's stdio form (top-level command/args, config.type: stdio) loads without a warning", () => {
  const lines: string[] = []
  const restore = setLogSink((line) => lines.push(line))
  const level = setLogLevel("INFO")
  try {
    const stdio = parseMcpServer(
      "s",
      {
        command: "python3",
        args: ["./stdio_server.py"],
        env: { TOOL_TOKEN: "abc12345xyz" },
        config: { type: "stdio" },
      },
      "f.yaml",
      {},
    )
    expect(stdio.transport).toMatchObject({
      kind: "stdio",
      command: "python3",
      args: ["./stdio_server.py"],
      env: { TOOL_TOKEN: "abc12345xyz" },
    })
    expect(() => parseMcpServer("s", { command: "a", config: { command: "b" } }, "f.yaml", {})).toThrow(
      "f.yaml: mcp_servers.s.command: also set as mcp_servers.s.config.command with another value",
    )
  } finally {
    setLogSink(restore)
    setLogLevel(level)
  }
  expect(lines.filter((l) => l.includes('"WARN"'))).toEqual([])
  // The server's token is a configured secret: hidden by value from now on (issue 21 item 8).
  expect(redact("token abc12345xyz")).toBe("token [REDACTED]")
})

// Issue 21 item 1: a stdio server's program named by path is found from the file that names it.
test("a stdio command given as a path is read from the naming file's folder; a bare name is left for PATH", () => {
  const at = (command: string) =>
    parseMcpServer("s", { config: { command } }, "/etc/dupin/toolsets/team.yaml", { HOME: "/home/op" })
      .transport
  expect(at("./mcp/server.py")).toMatchObject({ command: "/etc/dupin/toolsets/mcp/server.py" })
  expect(at("~/bin/mcp")).toMatchObject({ command: "/home/op/bin/mcp" })
  expect(at("npx")).toMatchObject({ command: "npx" })
  // A name with a slash is a path for the shell too, never looked up on PATH.
  expect(at("bin/mcp")).toMatchObject({ command: "/etc/dupin/toolsets/bin/mcp" })
})

// Issue 21 item 1, everywhere a config names a path: writable_paths too.
test("a stdio server's writable_paths expand ~ and are read from the naming file's folder", () => {
  const spec = parseMcpServer(
    "s",
    { config: { command: "npx", writable_paths: ["~/cache", "spool", "/var/tmp/x"] } },
    "/etc/dupin/toolsets/team.yaml",
    { HOME: "/home/op" },
  )
  expect(spec.transport).toMatchObject({
    writablePaths: ["/home/op/cache", "/etc/dupin/toolsets/spool", "/var/tmp/x"],
  })
})

// Issue 21 item 3: config.type, HolmesGPT's documented name of mode, warned at every start.
test("config.type is read as config.mode without a warning", () => {
  const lines: string[] = []
  const restore = setLogSink((line) => lines.push(line))
  const level = setLogLevel("INFO")
  try {
    const http = parseMcpServer("h", { config: { type: "sse", url: "http://127.0.0.1:9/sse" } }, "f.yaml", {})
    expect(http.transport).toMatchObject({ kind: "sse" })
    const stdio = parseMcpServer("s", { config: { type: "stdio", command: "python3" } }, "f.yaml", {})
    expect(stdio.transport).toMatchObject({ kind: "stdio", command: "python3" })
  } finally {
    setLogSink(restore)
    setLogLevel(level)
  }
  expect(lines.filter((l) => l.includes('"WARN"'))).toEqual([])
})
