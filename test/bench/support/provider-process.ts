/**
 * The fake OpenAI-compatible provider as its own process, so its CPU never competes with the
 * code under measurement on the same event loop. Every conversation gets the same script, decided
 * from the request alone (no per-conversation state): while the model has made fewer than `steps`
 * tool-calling replies since the last user message it calls `calls`, then it answers.
 *
 *   bun test/bench/support/provider-process.ts '{"latencyMs":50,"steps":3,"calls":[...]}'
 *
 * Prints one line `READY <provider base url> <control url>` on stdout. The control server answers
 * `GET /stats` with the number of completions served and the first request body seen at each step
 * (floors replay those bodies, so they make exactly the calls the system under test made).
 */
import { type FakeStep, type RecordedRequest, startFakeProvider } from "../../support/fake-provider.ts"

export type ProviderScript = {
  latencyMs: number
  steps: number
  calls: Array<{ name: string; arguments: Record<string, unknown> }>
  answer?: string
}

export type ProviderStats = { completions: number; firstBodies: Record<string, Record<string, unknown>> }

/** 1 + the assistant replies after the last user message: which step of its conversation a request is. */
export function stepOf(body: Record<string, unknown> | null): number {
  const messages = Array.isArray(body?.messages) ? (body.messages as Array<{ role?: unknown }>) : []
  let step = 1
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = messages[i]?.role
    if (role === "user") break
    if (role === "assistant") step++
  }
  return step
}

/** The engine refuses a repeated call (same tool, same arguments), so `"{{step}}"` in a value becomes the step. */
function withStep(call: ProviderScript["calls"][number], step: number): ProviderScript["calls"][number] {
  const args = Object.fromEntries(
    Object.entries(call.arguments).map(([k, v]) => [
      k,
      typeof v === "string" ? v.replaceAll("{{step}}", String(step)) : v,
    ]),
  )
  return { name: call.name, arguments: args }
}

if (import.meta.main) {
  const script = JSON.parse(process.argv[2] ?? "{}") as ProviderScript
  const fake = await startFakeProvider()
  const stats: ProviderStats = { completions: 0, firstBodies: {} }

  const decide = (request: RecordedRequest): FakeStep => {
    fake.script(decide) // one consumed, one added: the queue never runs dry
    stats.completions++
    // Keep the recorded-requests buffer from holding megabytes of histories.
    fake.requests.length = 0
    const step = stepOf(request.body)
    const key = String(step)
    if (request.body && !stats.firstBodies[key]) stats.firstBodies[key] = request.body
    const delay = script.latencyMs > 0 ? { delayMs: script.latencyMs } : {}
    if (step <= script.steps) return { ...delay, toolCalls: script.calls.map((c) => withStep(c, step)) }
    return { ...delay, content: script.answer ?? "All checks passed; nothing is wrong." }
  }
  // Several in the queue: each request takes one synchronously and puts one back.
  for (let i = 0; i < 8; i++) fake.script(decide)

  const control = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const path = new URL(req.url).pathname
      if (path === "/stats") return Response.json(stats)
      if (path === "/reset") {
        stats.completions = 0
        stats.firstBodies = {}
        return Response.json({ ok: true })
      }
      return new Response("not found", { status: 404 })
    },
  })
  process.stdout.write(`READY ${fake.url} http://127.0.0.1:${control.port}\n`)
  const stop = async () => {
    control.stop(true)
    await fake.stop()
    process.exit(0)
  }
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
}
