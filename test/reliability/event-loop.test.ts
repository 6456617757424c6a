/**
 * Model-chosen work never holds the event loop: while the worst case of each parse the model can
 * trigger runs inside a real `dupin serve` process, `/healthz` answers within 100 ms. Measured on
 * the polls sent during the hostile tool's run (from the model's call to its result); the whole
 * chat's worst, which includes producing and truncating the 800 KB output, is printed too. The fake
 * provider (in this process) plays the model; the hostile page comes from a loopback server that
 * `allowed_hosts` lets through. Each case prints its worst `/healthz` latency.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { type ServerProcess, startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "../bench/support/server-config.ts"
import { type FakeProvider, type RecordedRequest, startFakeProvider } from "../support/fake-provider.ts"

const HEALTHZ_BUDGET_MS = 100
/** A poll outstanding this long means the server is frozen: fail now instead of waiting it out. */
const FROZEN_MS = 2_000

// `lines_a`: the red team's 80 lines of 10,000 `a` (with `(.|.)*Z` ~0.5 s per line on a
// backtracking engine). `lines_text`: 80 lines of 10,000 letters and spaces, for a pattern whose
// RE2 program is large and whose `\b` keeps the matcher off its fast path. Outputs stay at 800 KB:
// larger ones cost the result path (redaction, token counting) time of their own, not measured here.
const TOOLSETS = `toolsets:
  dos/outputs:
    description: Large outputs for event-loop tests
    tools:
      - name: lines_a
        description: 80 long lines of a
        command: "awk 'BEGIN { s = sprintf(\\"%10000s\\", \\"\\"); gsub(/ /, \\"a\\", s); for (n = 0; n < 80; n++) print s }'"
      - name: lines_text
        description: 80 long lines of text
        command: "awk 'BEGIN { a = \\"abcdefghijklmnopqrstuvwxyz \\"; for (i = 0; i < 10000; i++) s = s substr(a, (i * 13 + i * i) % 27 + 1, 1); for (n = 0; n < 80; n++) print s }'"
      - name: ten_mb
        description: Prints 10 MB
        command: "head -c 10000000 /dev/zero | tr '\\\\0' a"
  bash:
    enabled: true
`

let fake: FakeProvider
let page: ReturnType<typeof Bun.serve>
let server: ServerProcess
type PlannedCall = { name: string; arguments: Record<string, unknown> }
/** What the next chat's model does: tool calls per step, chosen from the last message. */
let plan: (request: RecordedRequest) => PlannedCall | PlannedCall[] | undefined
/** Every tool result the model was sent, by tool_call_id. */
const results = new Map<string, string>()
/** The tools whose run is the hostile case; the earlier steps (producing the output) are not. */
const MEASURED = ["read_tool_output", "fetch_webpage", "ten_mb", "run_bash_command"]
/** When the model asked for the measured tool, and when its result came back. */
let phase: { start?: number; end?: number } = {}

beforeAll(async () => {
  page = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(`<p>visible</p><a${"b".repeat(300_000)}`, {
        headers: { "content-type": "text/html; charset=utf-8" },
      }),
  })
  fake = await startFakeProvider()
  const step = (request: RecordedRequest) => {
    fake.script(step)
    const messages = (request.body?.messages ?? []) as Array<Record<string, unknown>>
    for (const m of messages) {
      if (m.role === "tool") results.set(String(m.tool_call_id), String(m.content))
    }
    const last = messages.at(-1)
    if (last?.role === "tool" && MEASURED.some((t) => String(last.tool_call_id).startsWith(`${t}-`)))
      phase.end = performance.now()
    const planned = plan(request)
    const calls = planned === undefined ? [] : Array.isArray(planned) ? planned : [planned]
    if (calls.some((c) => MEASURED.includes(c.name))) phase.start = performance.now()
    if (calls.length === 0) return { content: "Done." }
    return { toolCalls: calls.map((c, i) => ({ id: `${c.name}-${messages.length}-${i}`, ...c })) }
  }
  fake.script(step)
  const { configPath } = writeServeConfig(
    fake.url,
    `${TOOLSETS}  internet:
    config:
      allowed_hosts: ["127.0.0.1:${page.port}"]
`,
  )
  // DUPIN_BINARY=dist/dupin runs the same cases against the compiled binary.
  const binary = process.env.DUPIN_BINARY
  const argv = binary ? [binary, "serve", "--config", configPath, "--port", "0"] : serveArgv(configPath)
  server = await startServerProcess(argv)
  await waitForOk(`${server.url}/readyz`)
  // Warm-up: the first chat loads the tokenizer and the provider SDK (a one-off second of work
  // that is not what these tests measure).
  plan = () => undefined
  const warm = await fetch(`${server.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ask: "warm up", stream: false }),
  })
  expect(warm.status).toBe(200)
  await warm.arrayBuffer()
}, 60_000)

afterAll(async () => {
  await server?.stop("SIGKILL")
  await fake?.stop()
  page?.stop(true)
})

type Measured = {
  /** Worst /healthz wait while the measured tool ran (see `inCase`). */
  worstMs: number
  /** Worst over the whole chat, the steps producing the output included. */
  worstChatMs: number
  polls: number
  chatMs: number
  frozen: boolean
}

/** Runs one chat while polling /healthz every 2 ms; stops early if the server freezes. */
async function whileHealthPolled(ask: string): Promise<Measured> {
  let done = false
  let frozen = false
  const polls: Array<{ start: number; end: number }> = []
  phase = {}
  const poller = (async () => {
    while (!done) {
      const start = performance.now()
      try {
        const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(FROZEN_MS) })
        await res.arrayBuffer()
      } catch {
        frozen = true
      }
      polls.push({ start, end: performance.now() })
      if (frozen) return
      await Bun.sleep(2)
    }
  })()
  const started = performance.now()
  const chat = fetch(`${server.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ask, stream: false }),
  }).then(async (res) => {
    expect(res.status).toBe(200)
    await res.arrayBuffer()
  })
  await Promise.race([chat, poller])
  const chatMs = performance.now() - started
  done = true
  await poller
  if (!frozen) await chat
  const from = phase.start ?? 0
  const to = phase.end ?? Number.POSITIVE_INFINITY
  const latency = (p: { start: number; end: number }) => p.end - p.start
  // A poll counts from when it was sent or from the model's call, whichever is later: one sent
  // before waits partly on the previous step (the server truncating and counting the 800 KB
  // output), which is not this case; a poll the server sits on during the case counts in full.
  const during = polls.filter((p) => p.end >= from && p.start <= to)
  const inCase = (p: { start: number; end: number }) => p.end - Math.max(p.start, from)
  return {
    worstMs: Math.max(0, ...during.map(inCase)),
    worstChatMs: Math.max(0, ...polls.map(latency)),
    polls: during.length,
    chatMs,
    frozen,
  }
}

/**
 * Runs the case up to three times until one run stays within the budget. A blocked event loop
 * blocks on every run; a single slow answer can also be the machine (two CPUs shared with other
 * test processes), which a second run does not repeat. Every run is printed.
 */
async function measure(name: string, ask: string): Promise<Measured> {
  let best: Measured | undefined
  for (let attempt = 1; attempt <= 3; attempt++) {
    const m = await whileHealthPolled(ask)
    console.log(
      `event-loop: ${name}: worst /healthz ${m.worstMs.toFixed(1)} ms over ${m.polls} polls while it ran` +
        `${m.frozen ? " (server frozen, stopped waiting)" : ""}; whole chat ${Math.round(m.chatMs)} ms, ` +
        `worst ${m.worstChatMs.toFixed(1)} ms (run ${attempt})`,
    )
    if (!best || m.worstMs < best.worstMs) best = m
    if (m.frozen || m.worstMs < HEALTHZ_BUDGET_MS) break
  }
  return best!
}

/** The model reads tool `tool`'s output, then searches it with `pattern`. */
function searchPlan(tool: string, pattern: string): typeof plan {
  return (request) => {
    const messages = (request.body?.messages ?? []) as Array<Record<string, unknown>>
    const last = messages.at(-1)
    if (last?.role === "user") return { name: tool, arguments: {} }
    const id = String(last?.tool_call_id ?? "")
    if (id.startsWith(`${tool}-`))
      return { name: "read_tool_output", arguments: { tool_call_id: id, pattern } }
    return undefined
  }
}

function lastSearch(): string {
  return [...results].filter(([id]) => id.startsWith("read_tool_output-")).at(-1)?.[1] ?? ""
}

test(
  "read_tool_output with (.|.)*Z over 80 lines of 10,000 characters",
  async () => {
    plan = searchPlan("lines_a", "(.|.)*Z")
    const m = await measure("read_tool_output (.|.)*Z, 80 x 10k", "search the a lines")
    expect(m.frozen).toBe(false)
    expect(lastSearch()).toContain("matches /(.|.)*Z/")
    expect(server.log.join("\n")).not.toContain("search worker unavailable")
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)

test(
  "read_tool_output with a large \\b pattern over 80 lines of 10,000 characters",
  async () => {
    plan = searchPlan("lines_text", "[a-z]{1000}\\b[a-z ]{1000}\\b[0-9]")
    const m = await measure("read_tool_output large \\b pattern, 80 x 10k", "search the text lines")
    expect(m.frozen).toBe(false)
    expect(lastSearch()).toContain("matches /")
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)

test(
  "fetch_webpage of <a + 300,000 letters",
  async () => {
    const url = `http://127.0.0.1:${page.port}/hostile`
    plan = (request) => {
      const last = ((request.body?.messages ?? []) as Array<Record<string, unknown>>).at(-1)
      return last?.role === "user" ? { name: "fetch_webpage", arguments: { url } } : undefined
    }
    const m = await measure("fetch_webpage <a + 300,000 letters", "read the hostile page")
    expect(m.frozen).toBe(false)
    const fetched = [...results].filter(([id]) => id.startsWith("fetch_webpage-")).at(-1)?.[1] ?? ""
    expect(fetched).toContain("visible")
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)

/** The model asks for `calls` in its first step, then answers. */
function firstStep(calls: PlannedCall[]): typeof plan {
  return (request) => {
    const last = ((request.body?.messages ?? []) as Array<Record<string, unknown>>).at(-1)
    return last?.role === "user" ? calls : undefined
  }
}

test(
  "fan-out: 80 parallel calls printing 10 MB each",
  async () => {
    plan = firstStep(Array.from({ length: 80 }, () => ({ name: "ten_mb", arguments: {} })))
    const m = await measure("fan-out 80 x 10 MB", "print a lot")
    // Each 10 MB result is redacted, cut and counted on the event loop after its process ends: that
    // work is bounded per result (the parallel cap and the request's output budget bound the rest),
    // so the server answers throughout, but not always within the 100 ms of the parse cases.
    expect(m.frozen).toBe(false)
    const outputs = [...results].filter(([id]) => id.startsWith("ten_mb-"))
    expect(outputs.length).toBe(80)
    // The results really are the 10 MB outputs, cut for the model.
    expect(outputs[0]![1]).toContain("aaaaaaaaaa")
    console.log(`event-loop: fan-out result sample: ${outputs[0]![1].slice(0, 200).replaceAll("\n", " ")}`)
    expect(m.worstMs).toBeLessThan(FROZEN_MS)
  },
  { timeout: 120_000 },
)

test(
  "a 3,000-stage pipeline is refused before anything runs",
  async () => {
    const command = Array.from({ length: 3000 }, () => "cat").join(" | ")
    plan = firstStep([{ name: "run_bash_command", arguments: { command } }])
    const m = await measure("3,000-stage pipeline", "run the long pipeline")
    expect(m.frozen).toBe(false)
    const result = [...results].filter(([id]) => id.startsWith("run_bash_command-")).at(-1)?.[1] ?? ""
    expect(result).toContain("Command refused (not run)")
    expect(m.worstMs).toBeLessThan(HEALTHZ_BUDGET_MS)
  },
  { timeout: 60_000 },
)
