/**
 * SIGTERM with streams in flight: every stream finishes, or ends with an `error` event once the
 * grace period is over; the process exits 0 and leaves no tool process behind.
 */
import { afterEach, expect, test } from "bun:test"
import { startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "../bench/support/server-config.ts"
import { type FakeProvider, type RecordedRequest, startFakeProvider } from "../support/fake-provider.ts"
import { liveByArgv, liveChildren, liveInGroup } from "../support/live-processes.ts"
import { waitFor } from "../support/wait.ts"
import { withinDeadline } from "./deadline.ts"
import { callThenAnswer } from "./server.ts"

const STREAMS = 10
/** Nap lengths with a tag, so the test finds its own tool processes by argv. */
const SHORT = "1.0137"
const LONG = "30.0137"
const KILLED = "60.0137"
let fake: FakeProvider | undefined
afterEach(async () => {
  await fake?.stop()
})

async function provider(seconds: string): Promise<FakeProvider> {
  const f = await startFakeProvider()
  const decide = callThenAnswer("nap", { seconds })
  const step = (request: RecordedRequest) => {
    f.script(step)
    return decide(request)
  }
  for (let i = 0; i < 8; i++) f.script(step)
  return f
}

/** Opens a stream, resolves `started` once its tool runs, and resolves to the names of its events. */
function openStream(url: string, started: () => void): Promise<string[]> {
  return (async () => {
    const res = await fetch(`${url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ask: "nap please", stream: true }),
    })
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    let told = false
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
      if (!told && text.includes("event: start_tool_calling\n")) {
        told = true
        started()
      }
    }
    return [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]!)
  })()
}

/**
 * The nap tool processes running `sleep <seconds>`, wherever they are: under containment they are
 * started by the sandbox helper, not by serve. The seconds carry a tag no other process uses.
 */
function naps(seconds: string): number[] {
  return liveByArgv(`sleep ${seconds}`)
}

/** serve's children: the sandbox helpers (and, uncontained, the tools themselves). */
function children(pid: number): number[] {
  return liveChildren(pid).map((l) => Number(l.split(/\s+/)[0]))
}

async function inFlight(url: string, seconds: string): Promise<Promise<string[]>[]> {
  let running = 0
  const all = Promise.withResolvers<void>()
  const streams = Array.from({ length: STREAMS }, () =>
    openStream(url, () => {
      if (++running === STREAMS) all.resolve()
    }),
  )
  await withinDeadline("streams starting their tools", 10_000, all.promise)
  // The tool processes are spawned right after the event: wait for them, not for a fixed time.
  await waitFor(() => naps(seconds).length >= STREAMS, { what: `${STREAMS} tool processes` })
  return streams
}

test("dupin serve: SIGTERM lets streams inside the grace period finish, then exits 0", async () => {
  fake = await provider(SHORT)
  const files = writeServeConfig(fake.url)
  const server = await startServerProcess(serveArgv(files.configPath))
  await waitForOk(`${server.url}/readyz`)
  const streams = await inFlight(server.url, SHORT)
  expect(naps(SHORT).length).toBe(STREAMS)
  const helpers = children(server.pid)

  server.proc.kill("SIGTERM")
  const events = await withinDeadline("streams after SIGTERM", 10_000, Promise.all(streams))
  for (const names of events) expect(names.at(-1)).toBe("ai_answer_end")
  expect(await withinDeadline("server exit", 10_000, server.proc.exited)).toBe(0)
  expect(naps(SHORT)).toEqual([])
  // The sandboxes of the views went with serve (issue 19.1).
  await waitFor(() => helpers.flatMap(liveInGroup).length === 0).catch(() => undefined)
  expect(helpers.flatMap(liveInGroup)).toEqual([])
}, 20_000)

test("streams still running when the grace period ends get an `error` event; exit 0, no tool left", async () => {
  fake = await provider(LONG)
  const files = writeServeConfig(fake.url)
  const server = await startServerProcess(["bun", "test/reliability/serve-with-grace.ts", files.configPath], {
    GRACE_MS: "1000",
  })
  await waitForOk(`${server.url}/readyz`)
  const streams = await inFlight(server.url, LONG)
  expect(naps(LONG).length).toBe(STREAMS)

  const t0 = performance.now()
  server.proc.kill("SIGTERM")
  const events = await withinDeadline("streams after SIGTERM", 10_000, Promise.all(streams))
  for (const names of events) expect(names.at(-1)).toBe("error")
  expect(await withinDeadline("server exit", 10_000, server.proc.exited)).toBe(0)
  // Grace 1 s, then the abort: SIGTERM to each tool group (SIGKILL 2 s later if need be).
  expect(performance.now() - t0).toBeLessThan(8_000)
  expect(naps(LONG)).toEqual([])
}, 20_000)

test("SIGKILL of serve leaves no tool process and no sandbox behind", async () => {
  fake = await provider(KILLED)
  const files = writeServeConfig(fake.url)
  const server = await startServerProcess(serveArgv(files.configPath))
  await waitForOk(`${server.url}/readyz`)
  const streams = await inFlight(server.url, KILLED)
  const helpers = children(server.pid)
  server.proc.kill("SIGKILL")
  await Promise.allSettled(streams)
  await waitFor(() => naps(KILLED).length === 0).catch(() => undefined)
  expect(naps(KILLED)).toEqual([])
  await waitFor(() => helpers.flatMap(liveInGroup).length === 0).catch(() => undefined)
  expect(helpers.flatMap(liveInGroup)).toEqual([])
}, 30_000)

test.skipIf(process.env.DUPIN_SOAK !== "1")(
  "soak: dupin serve's own 30 s grace ends a 40 s tool with an `error` event and exits 0",
  async () => {
    fake = await provider("40.0137")
    const files = writeServeConfig(fake.url)
    const server = await startServerProcess(serveArgv(files.configPath))
    await waitForOk(`${server.url}/readyz`)
    const streams = await inFlight(server.url, "40.0137")
    server.proc.kill("SIGTERM")
    const events = await withinDeadline("streams after SIGTERM", 45_000, Promise.all(streams))
    for (const names of events) expect(names.at(-1)).toBe("error")
    expect(await withinDeadline("server exit", 45_000, server.proc.exited)).toBe(0)
    expect(naps("40.0137")).toEqual([])
  },
  60_000,
)
