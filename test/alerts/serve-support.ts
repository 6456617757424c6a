/** A real `dupin serve` process with alert investigations on, against a fake provider. */
import { join } from "node:path"
import { type ServerProcess, startServerProcess, waitForOk } from "../bench/support/processes.ts"
import { serveArgv, writeServeConfig } from "../bench/support/server-config.ts"
import type { FakeProvider, FakeStep, RecordedRequest } from "../support/fake-provider.ts"
import { startFakeProvider } from "../support/fake-provider.ts"

export type ServedAlerts = {
  fake: FakeProvider
  configPath: string
  dir: string
  server: ServerProcess
  start(): Promise<ServerProcess>
  stop(): Promise<void>
}

/** Answers every provider request through `decide`, so any number of runs need no scripting. */
export async function endlessProvider(decide: (request: RecordedRequest) => FakeStep): Promise<FakeProvider> {
  const fake = await startFakeProvider()
  const step = (request: RecordedRequest) => {
    fake.script(step)
    fake.requests.length = 0
    return decide(request)
  }
  for (let i = 0; i < 16; i++) fake.script(step)
  return fake
}

/** Whether the request is a run's first model call (no tool result yet). */
export function isFirstStep(request: RecordedRequest): boolean {
  const messages = (request.body?.messages ?? []) as Array<{ role?: string }>
  return !messages.some((m) => m.role === "tool")
}

export async function serveAlerts(
  decide: (request: RecordedRequest) => FakeStep,
  alertsYaml: string,
  env: Record<string, string> = {},
): Promise<ServedAlerts> {
  const fake = await endlessProvider(decide)
  const files = writeServeConfig(fake.url, "")
  const configPath = files.configPath
  await Bun.write(
    configPath,
    `${await Bun.file(configPath).text()}store: { path: ${JSON.stringify(join(files.dir, "dupin.db"))} }\n${alertsYaml}\n`,
  )
  const start = async () => {
    const server = await startServerProcess(serveArgv(configPath), env)
    await waitForOk(`${server.url}/healthz`)
    return server
  }
  const served: ServedAlerts = {
    fake,
    configPath,
    dir: files.dir,
    server: await start(),
    start: async () => {
      served.server = await start()
      return served.server
    },
    stop: async () => {
      await served.server.stop("SIGKILL")
      await fake.stop()
    },
  }
  return served
}

export async function getJson<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, { headers })
  return (await res.json()) as T
}
