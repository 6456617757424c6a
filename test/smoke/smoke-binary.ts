/**
 * Smoke test of a built binary: `bun test/smoke/smoke-binary.ts dist/dupin` (run by .ci/run after
 * `bun run build`). The binary is copied alone into an empty directory and run with an empty HOME,
 * so anything it still reads from the build tree (toolsets, prompts, catalog) makes it fail here.
 * A fake OpenAI-compatible provider runs in this process; the binary reaches it over loopback.
 * Prints each check; exits 1 on the first failure.
 */
import { join } from "node:path"
import type { ChatResponseBody } from "../../src/agent/response-body.ts"
import { TokenCounter } from "../../src/llm/tokens.ts"
import type { ToolSchema } from "../../src/llm/types.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"
import { isolate, run, serve } from "./binary.ts"

const binaryPath = process.argv[2]
if (!binaryPath) {
  console.error("usage: bun test/smoke/smoke-binary.ts <path to dupin binary>")
  process.exit(2)
}

function check(condition: unknown, what: string, detail = ""): void {
  if (!condition) throw new Error(`${what}${detail ? `\n${detail}` : ""}`)
  console.log(`ok    ${what}`)
}

/** The tool result text the model received in the request after a tool call. */
function toolResultSent(fake: FakeProvider, requestIndex: number): string {
  const messages = (fake.requests[requestIndex]?.body?.messages ?? []) as Array<{
    role: string
    content: unknown
  }>
  return messages
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content))
    .join("\n")
}

/**
 * The binary reads its vocabularies prebuilt (build.ts); from source they are built from the ranks
 * (test/llm checks those ids against js-tiktoken's). The counts of the whole conversation, tool
 * definitions as the provider received them included, must be the same.
 */
async function checkTokenCounts(fake: FakeProvider, body: ChatResponseBody, model: string, what: string) {
  const counter = await TokenCounter.forModel(model)
  const tools = (fake.requests.at(-1)?.body?.tools ?? []) as ToolSchema[]
  const expected = counter.tally(body.conversation_history, tools)
  check(
    JSON.stringify(body.metadata?.tokens) === JSON.stringify(expected),
    `${what}: ${expected.total_tokens} tokens (${counter.encoding}), as counted from source`,
    `binary: ${JSON.stringify(body.metadata?.tokens)}
source: ${JSON.stringify(expected)}`,
  )
}

const fake = await startFakeProvider()
const iso = isolate(binaryPath, { OPENAI_API_KEY: "test", OPENAI_BASE_URL: fake.url, MODEL: "openai/gpt-4o" })

try {
  const version = await run(iso, ["version"])
  check(
    version.code === 0 && /^dupin \d+\.\d+\.\d+ \(commit (?!source)\S+,/.test(version.stdout),
    `version: ${version.stdout.trim()}`,
    version.stderr,
  )

  const toolsets = await run(iso, ["toolsets", "list", "--json"])
  const rows = JSON.parse(toolsets.stdout || "[]") as Array<{ name: string; status: string; tools: string[] }>
  check(
    toolsets.code === 0 && rows.length > 0,
    `toolsets list: ${rows.map((r) => `${r.name}=${r.status}`).join(", ")}`,
  )
  // An embedded YAML toolset proves the toolsets are inside the binary; linux/host needs Linux.
  const host = rows.find(
    (r) => r.name === "linux/host" && r.status === "enabled" && r.tools.includes("host_memory"),
  )
  const tool = host
    ? { name: "host_memory", evidence: "MemTotal" }
    : { name: "TodoWrite", evidence: "Plan updated" }
  const toolCall = { name: tool.name, arguments: tool.name === "TodoWrite" ? { todos: [] } : {} }
  console.log(
    `using tool ${tool.name}${host ? " (embedded linux/host toolset)" : " (linux/host not available here)"}`,
  )

  // ask: answer on stdout, progress on stderr, the tool really ran.
  fake.script({ toolCalls: [toolCall] }, { content: "Memory is fine: **plenty** free." })
  const before = fake.requests.length
  const ask = await run(iso, ["ask", "how much memory is free?", "--no-interactive"])
  check(ask.code === 0, "ask exits 0", ask.stderr)
  check(ask.stdout === "Memory is fine: **plenty** free.\n", "ask prints the answer on stdout", ask.stdout)
  check(
    ask.stderr.includes(`▸ ${tool.name}(`) && ask.stderr.includes(`✓ ${tool.name}`),
    "ask shows the tool call on stderr",
    ask.stderr,
  )
  check(
    toolResultSent(fake, before + 1).includes(tool.evidence),
    `ask ran ${tool.name} (result has "${tool.evidence}")`,
  )

  // serve: /readyz, then a full chat over HTTP.
  const server = await serve(iso)
  try {
    check(true, `serve ready at ${server.url} after ${server.readyMs.toFixed(0)} ms`)
    const health = await fetch(`${server.url}/healthz`)
    check(health.status === 200, "GET /healthz is 200")
    // prctl through bun:ffi must work inside the compiled binary, not only from source.
    const info = (await (await fetch(`${server.url}/api/info`)).json()) as {
      containment?: { level: string; mechanism: string | null; non_dumpable: boolean; warnings: string[] }
    }
    const containment = info.containment
    check(
      containment && (process.platform !== "linux" || containment.non_dumpable),
      `containment: ${containment?.level} (${containment?.mechanism ?? "no sandbox"}), non-dumpable ${containment?.non_dumpable}`,
      JSON.stringify(containment),
    )
    fake.script({ toolCalls: [toolCall] }, { content: "Served answer." })
    const start = fake.requests.length
    const response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ask: "how much memory is free?" }),
    })
    const body = (await response.json()) as ChatResponseBody
    check(response.status === 200, "POST /api/chat is 200", JSON.stringify(body))
    check(body.analysis === "Served answer.", "POST /api/chat returns the analysis", JSON.stringify(body))
    check(
      body.tool_calls?.[0]?.tool_name === tool.name,
      `POST /api/chat ran ${tool.name}`,
      JSON.stringify(body),
    )
    check(
      toolResultSent(fake, start + 1).includes(tool.evidence),
      `serve sent the ${tool.name} result to the model`,
    )
    await checkTokenCounts(fake, body, "gpt-4o", "POST /api/chat")
    server.proc.kill("SIGTERM")
    const code = await Promise.race([server.proc.exited, Bun.sleep(10_000).then(() => "timeout")])
    check(code === 0, `serve exits 0 on SIGTERM (got ${code})`, server.stderr())
  } finally {
    server.proc.kill("SIGKILL")
  }
  // The other encoding: gpt-4 counts with cl100k_base.
  fake.script({ content: "Déjà vu 🚀 <|endoftext|> 日本語." })
  const gpt4 = await run({ ...iso, env: { ...iso.env, MODEL: "openai/gpt-4" } }, [
    "ask",
    "données, 東京 👩‍👩‍👧‍👦?",
    "--no-interactive",
    "--json",
  ])
  check(gpt4.code === 0, "ask --json with gpt-4 exits 0", gpt4.stderr)
  await checkTokenCounts(fake, JSON.parse(gpt4.stdout) as ChatResponseBody, "gpt-4", "ask --json")

  // An operator's .env or bunfig.toml in the working directory must not change the binary.
  await Bun.write(join(iso.dir, ".env"), "SVC_LOG_LEVEL=LOUD\n")
  await Bun.write(join(iso.dir, "bunfig.toml"), 'preload = ["./boom.ts"]\n')
  await Bun.write(join(iso.dir, "boom.ts"), 'throw new Error("bunfig.toml was loaded")\n')
  fake.script({ content: "Still the fake." })
  const autoload = await run(iso, ["ask", "ping", "--no-interactive"])
  check(
    autoload.code === 0 && autoload.stdout === "Still the fake.\n",
    "ask ignores .env and bunfig.toml in its working directory",
    autoload.stderr,
  )

  console.log("binary smoke test passed")
} catch (error) {
  console.error(`FAIL  ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await fake.stop()
  iso.remove()
}
