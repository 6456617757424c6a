/**
 * MCP servers for the tests: the fault server (fixtures/fault-server.ts) and the third-party
 * servers installed as dev dependencies, run with this Bun. Nothing here reaches the internet.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { Subprocess } from "bun"
import { Config, type ConfigInit } from "../../src/config/config.ts"
import type { ToolCall } from "../../src/llm/types.ts"
import { createRuntime } from "../../src/runtime/runtime.ts"
import type { ToolExecutor } from "../../src/tool/executor.ts"
import { waitFor } from "../support/wait.ts"

const ROOT = resolve(import.meta.dir, "../..")
export const FAULT_SERVER = join(ROOT, "test/mcp/fixtures/fault-server.ts")
export const MODERN_SERVER = join(ROOT, "test/mcp/fixtures/modern-server.ts")
export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
export const FILESYSTEM = join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")

export function tempDir(prefix = "dupin-mcp-"): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** A `mcp_servers` entry running the fault server with its marker files in `dir`. */
export function faultServer(dir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  // The server writes its marker files in `dir`: under containment that needs writable_paths.
  return { config: { command: process.execPath, args: [FAULT_SERVER, dir], writable_paths: [dir] }, ...extra }
}

/** Pids of the fault server's starts, oldest first. */
export function starts(dir: string): number[] {
  try {
    return readFileSync(join(dir, "starts"), "utf8").trim().split("\n").filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** A Config with only the given servers besides the built-in toolsets, and no provider key in env. */
export function mcpConfig(mcpServers: Record<string, unknown>, init: ConfigInit = {}): Config {
  return new Config({
    model: "openai/gpt-4o",
    apiKey: "test",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tempDir("dupin-mcp-home-") },
    mcpServers,
    // These tests watch the servers from the host (pids, process groups): uncontained unless a
    // test asks for containment (a library Config is contained by default).
    security: { containment: "off" },
    ...init,
  })
}

export async function readyExecutor(config: Config): Promise<ToolExecutor> {
  const executor = createRuntime(config).executor
  await executor.ensureReady()
  return executor
}

let callId = 0
export function toolCall(name: string, args: Record<string, unknown>): ToolCall {
  return { id: `call_${++callId}`, type: "function", function: { name, arguments: JSON.stringify(args) } }
}

/** Runs one call through the executor as the loop does (prepare, then run). */
export async function callTool(
  executor: ToolExecutor,
  name: string,
  args: Record<string, unknown>,
  signal = new AbortController().signal,
) {
  return await executor.run(executor.prepare(toolCall(name, args)), signal)
}

export type HttpServer = { url: string; proc: Subprocess; stop(): Promise<void> }

/** server-everything over HTTP (`streamableHttp` at /mcp, or the legacy `sse` at /sse). */
export async function startEverythingHttp(mode: "streamableHttp" | "sse", at?: number): Promise<HttpServer> {
  const port = at ?? (await freePort())
  const proc = Bun.spawn([process.execPath, EVERYTHING, mode], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdout: "ignore",
    stderr: "pipe",
    detached: true,
  })
  const base = `http://127.0.0.1:${port}`
  const stop = async () => {
    try {
      process.kill(-proc.pid, "SIGKILL")
    } catch {
      // Gone.
    }
    await proc.exited
  }
  await waitFor(
    async () => {
      try {
        await fetch(`${base}/`, { signal: AbortSignal.timeout(500) })
        return true
      } catch {
        return false
      }
    },
    { what: `server-everything ${mode} on ${port}`, timeoutMs: 20_000, intervalMs: 50 },
  ).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  return { url: `${base}${mode === "sse" ? "/sse" : "/mcp"}`, proc, stop }
}

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() })
  const port = probe.port as number
  await probe.stop(true)
  return port
}
