/**
 * One request cannot stall the server (issue 18, class 1): while each input an outside party
 * sizes or shapes runs inside a real `dupin serve`, a `/healthz` probe sent every 10 ms answers
 * within 100 ms. The inputs are the red team's (findings R1, R2, R11, R12, R15, R17), scaled down
 * so a server that does block, blocks for seconds rather than minutes. Each case also checks that
 * the result is still right (redaction redacts, a bad answer is still refused). The fake provider
 * (in this process) plays the model; a hostile MCP server (fixtures/hostile-mcp.ts) plays the
 * server. DUPIN_BINARY=dist/dupin runs the same cases against the compiled binary.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { join } from "node:path"
import { type ServerProcess, startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "../bench/support/server-config.ts"
import { type FakeProvider, type RecordedRequest, startFakeProvider } from "../support/fake-provider.ts"

const HEALTHZ_BUDGET_MS = 100
const PROBE_EVERY_MS = 10
/** A poll outstanding this long means the server is frozen: stop waiting for it. */
const FROZEN_MS = 3_000
const HOSTILE_MCP = join(import.meta.dir, "fixtures/hostile-mcp.ts")
const HEALTHZ_PROBE = join(import.meta.dir, "fixtures/healthz-probe.ts")
const BAD_URL = `http://${"a".repeat(40)}!`

// `secrets_yaml`: ~10 MB of Kubernetes Secret manifests, the redactor's slowest shape (R11).
const TOOLSETS = `toolsets:
  dos/redaction:
    description: Outputs shaped for the redactor
    tools:
      - name: secrets_yaml
        description: Prints 10 MB of Secret manifests (n tells parallel calls apart)
        command: "awk 'BEGIN { for (i = 0; i < 400000; i++) printf \\"kind: Secret\\\\ndata:\\\\n  a: v%d\\\\n\\", i }' {{ n }}"
        parameters:
          n: { type: string }
mcp_servers:
  hostile:
    config:
      command: ${process.execPath}
      args: [${HOSTILE_MCP}]
`

type PlannedCall = { name: string; arguments: Record<string, unknown> }
type Step = { calls?: PlannedCall[]; content?: string }

let fake: FakeProvider
let server: ServerProcess
/** What the model does next, from the request it was sent. */
let plan: (request: RecordedRequest) => Step = () => ({ content: "Done." })
/** Every tool result the model was sent, by tool_call_id. */
const results = new Map<string, string>()

beforeAll(async () => {
  fake = await startFakeProvider()
  const step = (request: RecordedRequest) => {
    fake.script(step)
    const messages = (request.body?.messages ?? []) as Array<Record<string, unknown>>
    for (const m of messages) {
      if (m.role === "tool") results.set(String(m.tool_call_id), String(m.content))
    }
    const next = plan(request)
    if (!next.calls?.length) return { content: next.content ?? "Done." }
    return {
      toolCalls: next.calls.map((c, i) => ({ id: `${c.name}-${messages.length}-${i}`, ...c })),
    }
  }
  fake.script(step)
  const { configPath } = writeServeConfig(fake.url, TOOLSETS)
  const binary = process.env.DUPIN_BINARY
  const argv = binary ? [binary, "serve", "--config", configPath, "--port", "0"] : serveArgv(configPath)
  const prof = process.env.EVL_PROF
  if (prof) argv.splice(1, 0, "--cpu-prof-md", `--cpu-prof-dir=${prof}`)
  server = await startServerProcess(argv)
  await waitForOk(`${server.url}/readyz`)
}, 60_000)

afterAll(async () => {
  await server?.stop(process.env.EVL_PROF ? "SIGTERM" : "SIGKILL")
  await fake?.stop()
})

type Measured = { worstMs: number; polls: number; frozen: boolean; status: number; body: string }

/**
 * Sends one chat while a probe (its own process, fixtures/healthz-probe.ts) polls /healthz every
 * 10 ms, and keeps probing `afterMs` after the answer (for work the request leaves behind). The
 * body is serialised before the probe starts: 18 MB of JSON is the test's work, not the server's.
 */
async function probed(body: Record<string, unknown>, afterMs = 0): Promise<Measured> {
  const payload = JSON.stringify({ stream: false, ...body })
  const probe = Bun.spawn(["bun", HEALTHZ_PROBE, server.url, String(PROBE_EVERY_MS), String(FROZEN_MS)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  })
  const report = new Response(probe.stdout).text()
  // The probe's first answer says it runs (starting Bun takes a while on a loaded machine).
  await Bun.sleep(300)
  const chat = fetch(`${server.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: payload,
  }).then(async (res) => ({ status: res.status, body: await res.text() }))
  const ended = probe.exited.then(() => undefined)
  const first = await Promise.race([chat, ended])
  if (first && afterMs > 0) await Promise.race([Bun.sleep(afterMs), ended])
  probe.stdin.end()
  const { worst, polls, frozen } = JSON.parse((await report) || '{"worst":0,"polls":0,"frozen":true}') as {
    worst: number
    polls: number
    frozen: boolean
  }
  const answer = first ?? (frozen ? { status: 0, body: "" } : await chat)
  return { worstMs: worst, polls, frozen, ...answer }
}

/**
 * Runs the case up to three times until one run stays within the budget: a blocked event loop
 * blocks on every run, while a single slow answer can be the machine (two CPUs shared with other
 * test processes). Every run is printed.
 */
async function measure(
  name: string,
  body: () => Record<string, unknown>,
  { afterMs = 0, attempts = 3 } = {},
): Promise<Measured> {
  let best: Measured | undefined
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const m = await probed(body(), afterMs)
    console.log(
      `event-loop inputs: ${name}: worst /healthz ${m.worstMs.toFixed(1)} ms over ${m.polls} polls` +
        `${m.frozen ? " (server frozen, stopped waiting)" : ""}; status ${m.status} (run ${attempt})`,
    )
    if (!best || m.worstMs < best.worstMs) best = m
    if (m.frozen || m.worstMs < HEALTHZ_BUDGET_MS) break
    // A slow run may be the machine: let it settle before the next.
    await Bun.sleep(500)
  }
  return best!
}

/** The model calls `calls` after the question, then answers. */
function firstStep(calls: PlannedCall[]): typeof plan {
  return (request) => {
    const last = ((request.body?.messages ?? []) as Array<Record<string, unknown>>).at(-1)
    return last?.role === "user" ? { calls } : { content: "Done." }
  }
}

function resultsOf(tool: string): string[] {
  return [...results].filter(([id]) => id.startsWith(`${tool}-`)).map(([, content]) => content)
}

// First: the server has served nothing yet (R17).
test(
  "R17: the first request after start",
  async () => {
    // The server warms up in the background after listening (and logs it). A client cannot know
    // when that ends, but a load balancer's first request usually comes later than /readyz: wait
    // for the line, up to 30 s (without it, as on 37aefe4, the first chat does the work itself).
    const until = Date.now() + 30_000
    while (Date.now() < until && !server.log.some((line) => line.includes("warmed up"))) await Bun.sleep(50)
    plan = () => ({ content: "Done." })
    // One run only: a request is the first only once.
    const m = await measure("R17 first request after start", () => ({ ask: "hello" }), { attempts: 1 })
    expect(m.status).toBe(200)
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)

test(
  "R1: an MCP outputSchema pattern that backtracks, on the server's structuredContent",
  async () => {
    plan = firstStep([{ name: "redos_out", arguments: {} }])
    const m = await measure("R1 MCP outputSchema ^(a|a)*$", () => ({ ask: "names" }))
    expect(m.frozen).toBe(false)
    expect(m.status).toBe(200)
    expect(resultsOf("redos_out").at(-1)).toContain("names: 4")
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)

test(
  "R1: an MCP input schema with format url, on the model's arguments",
  async () => {
    plan = firstStep([{ name: "url_in", arguments: { urls: [BAD_URL, BAD_URL] } }])
    const m = await measure("R1 MCP input format url", () => ({ ask: "urls" }))
    expect(m.frozen).toBe(false)
    expect(m.status).toBe(200)
    // `format` only annotates: the call reaches the server.
    expect(resultsOf("url_in").at(-1)).toContain("checked 2 urls")
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)

test(
  "R12: unsolicited 16 MB MCP notifications",
  async () => {
    plan = firstStep([{ name: "start_noise", arguments: { seconds: 3 } }])
    const m = await measure("R12 16 MB notifications every 300 ms", () => ({ ask: "noise" }), {
      afterMs: 3_000,
    })
    expect(m.frozen).toBe(false)
    expect(m.status).toBe(200)
    expect(resultsOf("start_noise").at(-1)).toContain("noise started")
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)

// A long output never reaches the event loop: the sandbox helper writes it to a file of the run
// area, and the off-loop worker reads, decodes, redacts and spills it; the loop gets the prefix.
test(
  "R11: 8 parallel 10 MB outputs of Secret manifests",
  async () => {
    plan = firstStep(
      Array.from({ length: 8 }, (_, i) => ({
        name: "secrets_yaml",
        arguments: { n: `/dev/null${"/".repeat(i)}` },
      })),
    )
    const m = await measure("R11 redaction 8 x 10 MB", () => ({ ask: "secrets" }))
    expect(m.frozen).toBe(false)
    expect(m.status).toBe(200)
    const outputs = resultsOf("secrets_yaml")
    expect(outputs.length).toBeGreaterThanOrEqual(8)
    // Still redacted: the values are gone, the keys stay (in every output; the request's output
    // budget cuts the ones that finish after 50 MB to nothing, so not every one shows keys).
    expect(outputs.some((output) => output.includes("a: [REDACTED]"))).toBe(true)
    for (const output of outputs) expect(output).not.toMatch(/a: v\d/)
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 120_000 },
)

/** ~18 MB of short messages of random words: distinct text, so no token cache helps (R2). */
function bigHistory(): Array<Record<string, string>> {
  const letters = "abcdefghijklmnopqrstuvwxyz"
  const word = () => {
    let w = ""
    for (let n = 3 + Math.floor(Math.random() * 7); n > 0; n--) w += letters[Math.floor(Math.random() * 26)]
    return w
  }
  const history: Array<Record<string, string>> = [{ role: "system", content: "You are dupin." }]
  let bytes = 0
  while (bytes < 18_000_000) {
    const words: string[] = []
    for (let i = 0; i < 50; i++) words.push(word())
    const content = words.join(" ")
    bytes += content.length + 40
    history.push({ role: history.length % 2 === 1 ? "user" : "assistant", content })
  }
  return history
}

// Token counting is sliced and estimated (23 s → about a second here); the body is joined, parsed
// and split in the worker, the history rebuilt a slice at a time, and the answer (which echoes the
// history) serialised in pieces.
test(
  "R2: an 18 MB conversation_history",
  async () => {
    plan = () => ({ content: "Done." })
    const history = bigHistory()
    const m = await measure("R2 18 MB conversation_history", () => ({
      ask: "and now?",
      conversation_history: history,
    }))
    expect(m.frozen).toBe(false)
    expect(m.status).toBe(200)
    // Token counts stay sane: about a token per 4-5 characters of these words.
    const tokens = (JSON.parse(m.body) as { metadata?: { tokens?: { total_tokens?: number } } }).metadata
      ?.tokens?.total_tokens
    console.log(`event-loop inputs: R2 total_tokens ${tokens}`)
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 120_000 },
)

test(
  "R15: response_format with a backtracking pattern and format url",
  async () => {
    const answer = JSON.stringify({ urls: [BAD_URL, BAD_URL], words: [`${"a".repeat(40)}!`] })
    plan = () => ({ content: answer })
    const m = await measure("R15 response_format pattern + url", () => ({
      ask: "structured",
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "hostile",
          schema: {
            type: "object",
            properties: {
              urls: { type: "array", items: { type: "string", format: "url" } },
              words: { type: "array", items: { type: "string", pattern: "^(\\w+\\s?)*$" } },
            },
            required: ["urls", "words"],
          },
        },
      },
    }))
    expect(m.frozen).toBe(false)
    // The pattern is still checked: the answer does not match it (or cannot be shown to within
    // the check's deadline), so it is refused.
    expect(m.status).toBe(502)
    expect(m.body).toMatch(/does not match the pattern|could not be checked against the schema/)
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)
