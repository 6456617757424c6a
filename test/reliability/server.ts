/** A real `dupin serve` process on a free loopback port, with a fake provider in the test process. */

import { type ServerProcess, startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "../bench/support/server-config.ts"
import {
  type FakeProvider,
  type FakeStep,
  type RecordedRequest,
  startFakeProvider,
} from "../support/fake-provider.ts"

export type ServedDupin = {
  fake: FakeProvider
  server: ServerProcess
  /** POST /api/chat with a raw body (string or bytes) or a JSON value. */
  chat(body: unknown, init?: { headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>
  stop(): Promise<void>
}

/**
 * `decide` answers every provider request (default: a plain answer), so any number of chats can
 * run without scripting each one.
 */
export async function serveDupin(
  decide: (request: RecordedRequest) => FakeStep = () => ({ content: "All good." }),
  /** Extra top-level YAML for the config file. */
  configExtra = "",
): Promise<ServedDupin> {
  const fake = await startFakeProvider()
  const step = (request: RecordedRequest) => {
    fake.script(step)
    fake.requests.length = 0
    return decide(request)
  }
  for (let i = 0; i < 8; i++) fake.script(step)
  const files = writeServeConfig(fake.url, configExtra)
  const server = await startServerProcess(serveArgv(files.configPath))
  await waitForOk(`${server.url}/readyz`)
  return {
    fake,
    server,
    chat: (body, init = {}) =>
      fetch(`${server.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", ...init.headers },
        body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
        ...(init.signal ? { signal: init.signal } : {}),
      }),
    stop: async () => {
      await server.stop("SIGKILL")
      await fake.stop()
    },
  }
}

/** Starts a streaming chat and resolves once `event` has been seen, leaving the stream open. */
export async function streamUntil(
  served: ServedDupin,
  body: Record<string, unknown>,
  event: string,
  signal: AbortSignal,
): Promise<void> {
  const res = await served.chat({ ...body, stream: true }, { signal })
  if (res.status !== 200 || !res.body) throw new Error(`stream refused: ${res.status} ${await res.text()}`)
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let text = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) throw new Error(`stream ended before ${event}: ${text}`)
    text += decoder.decode(value, { stream: true })
    if (text.includes(`event: ${event}\n`)) return
  }
}

/**
 * When the question mentions `tool`, calls it with `args` on the first step, then answers; any
 * other question is answered at once.
 */
export function callThenAnswer(
  tool: string,
  args: Record<string, unknown>,
): (request: RecordedRequest) => FakeStep {
  return (request) => {
    const messages = (request.body?.messages ?? []) as Array<{ role?: string; content?: unknown }>
    const last = messages.at(-1)
    if (last?.role !== "user" || !String(last.content).includes(tool)) return { content: "Done." }
    return { toolCalls: [{ name: tool, arguments: args }] }
  }
}
