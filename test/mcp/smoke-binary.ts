/**
 * Smoke test of a built binary with MCP servers: `bun test/mcp/smoke-binary.ts dist/dupin`. The
 * isolated binary (test/smoke/binary.ts) runs `dupin ask` against the fake provider with
 * server-everything over stdio and over Streamable HTTP; the model's tool call must reach each
 * server and come back, and no stdio server may outlive the binary. Exits 1 on the first failure.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { isolate, run } from "../smoke/binary.ts"
import { startFakeProvider } from "../support/fake-provider.ts"
import { EVERYTHING, startEverythingHttp } from "./support.ts"

const binaryPath = process.argv[2]
if (!binaryPath) {
  console.error("usage: bun test/mcp/smoke-binary.ts <path to dupin binary>")
  process.exit(2)
}

function check(condition: unknown, what: string, detail = ""): void {
  if (!condition) throw new Error(`${what}${detail ? `\n${detail}` : ""}`)
  console.log(`ok    ${what}`)
}

const fake = await startFakeProvider()
const iso = isolate(binaryPath, { OPENAI_API_KEY: "test", OPENAI_BASE_URL: fake.url, MODEL: "openai/gpt-4o" })
const http = await startEverythingHttp("streamableHttp")

try {
  const config = join(iso.dir, "dupin.yaml")
  writeFileSync(
    config,
    `mcp_servers:
  local:
    config:
      command: ${process.execPath}
      args: [${JSON.stringify(EVERYTHING)}, stdio]
  remote:
    config:
      url: ${http.url}
`,
  )
  const listed = await run(iso, ["toolsets", "list", "--json", "--config", config])
  const rows = JSON.parse(listed.stdout || "[]") as Array<{
    name: string
    status: string
    transport?: string
  }>
  const local = rows.find((r) => r.name === "local")
  const remote = rows.find((r) => r.name === "remote")
  check(
    local?.status === "enabled" && local.transport === "stdio",
    `toolsets: local=${local?.status} (${local?.transport})`,
    listed.stderr,
  )
  check(
    remote?.status === "enabled" && remote.transport === "streamable-http",
    `toolsets: remote=${remote?.status} (${remote?.transport})`,
    listed.stderr,
  )

  // local's tools keep their names; remote's are the same tools, so they get the server prefix.
  fake.script(
    {
      toolCalls: [
        { id: "s1", name: "get-sum", arguments: { a: 20, b: 22 } },
        { id: "h1", name: "remote__echo", arguments: { message: "over http" } },
      ],
    },
    { content: "Both answered." },
  )
  const asked = await run(iso, ["ask", "--config", config, "--no-interactive", "sum and echo"])
  const messages = (fake.requests.at(-1)?.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const results = messages
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content))
    .join("\n")
  check(asked.code === 0 && asked.stdout.includes("Both answered."), "ask: answer printed", asked.stderr)
  check(
    results.includes("The sum of 20 and 22 is 42"),
    "ask: stdio server's tool result reached the model",
    results,
  )
  check(results.includes("Echo: over http"), "ask: HTTP server's tool result reached the model", results)
  const left = Bun.spawnSync(["pgrep", "-f", `${EVERYTHING} stdio`])
    .stdout.toString()
    .trim()
  check(left === "", "no stdio server left after the binary exited", left)
} catch (error) {
  console.error(`FAIL  ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await http.stop()
  await fake.stop()
  iso.remove()
}
