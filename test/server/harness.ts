import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { StreamMessage } from "../../src/agent/events.ts"
import { Config, type ConfigInit } from "../../src/config/config.ts"
import { type AppOptions, createApp } from "../../src/server/app.ts"
import { ActiveRuns } from "../../src/server/runs.ts"
import { ServerMetrics } from "../../src/server/telemetry.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

/**
 * A YAML toolset for the server tests: `note` writes a marker file (so a test can prove whether
 * it ran), `restart` needs approval and does the same, `nap` sleeps in a process group and
 * records its pgid. Paths come from the temp dir of each harness.
 */
function toolsetYaml(dir: string): string {
  return `toolsets:
  test/tools:
    description: Tools for server tests
    tools:
      - name: note
        description: Write a note to a marker file
        command: "echo {{ text }} >> ${dir}/notes.txt; echo noted {{ text }}"
        parameters:
          text: { type: string }
      - name: restart
        description: Restart a service
        command: "echo {{ service }} >> ${dir}/restarted.txt; echo restarted {{ service }}"
        parameters:
          service: { type: string }
        requires_approval: true
      - name: nap
        description: Sleep for a while
        command: "echo $$ > ${dir}/nap.pid; sleep 30 & sleep 30"
`
}

export type Harness = {
  fake: FakeProvider
  config: Config
  url: string
  dir: string
  metrics: ServerMetrics
  runs: ActiveRuns
  post(body: unknown, headers?: Record<string, string>, signal?: AbortSignal): Promise<Response>
  /** Posts with `stream: true` and reads the whole stream. */
  stream(body: Record<string, unknown>, headers?: Record<string, string>): Promise<SseResult>
  stop(): Promise<void>
}

export type HarnessOptions = {
  env?: Record<string, string>
  init?: Omit<ConfigInit, "env">
  app?: AppOptions
  /** Use a modelList with these keys instead of a single model. */
  useModelList?: boolean
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const fake = await startFakeProvider()
  const dir = mkdtempSync(join(tmpdir(), "dupin-server-test-"))
  const toolsetFile = join(dir, "toolsets.yaml")
  writeFileSync(toolsetFile, toolsetYaml(dir))
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env }
  const modelInit: ConfigInit = options.useModelList
    ? {
        model: "fast",
        modelList: {
          fast: { model: "openai/gpt-4o", api_key: "test", api_base: fake.url },
          blind: {
            model: "openai/gpt-3.5-turbo",
            api_key: "test",
            api_base: fake.url,
            supports_vision: false,
          },
        },
      }
    : { model: "openai/gpt-4o", apiBase: fake.url, apiKey: "test" }
  const config = new Config({
    ...modelInit,
    customToolsets: [toolsetFile],
    // The server tests watch tool processes from the host (pid files, process groups): they run
    // uncontained unless a test asks for containment (a library Config is contained by default).
    security: { containment: "off" },
    ...options.init,
    env,
  })
  const metrics = new ServerMetrics()
  const runs = new ActiveRuns()
  const app = createApp(config, { metrics, runs, ...options.app })
  app.listen({ hostname: "127.0.0.1", port: 0 })
  const url = `http://127.0.0.1:${app.server?.port}`
  const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(`${url}/api/chat`, {
      method: "POST",
      ...(signal ? { signal } : {}),
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    })
  return {
    fake,
    config,
    url,
    dir,
    metrics,
    runs,
    post,
    stream: async (body, headers) => parseSse(await post({ ...body, stream: true }, headers)),
    stop: async () => {
      await app.stop(true)
      await fake.stop()
    },
  }
}

export type SseFrame = { event: string; data: unknown; raw: string }
export type SseResult = { response: Response; text: string; frames: SseFrame[]; events: StreamMessage[] }

export async function parseSse(response: Response): Promise<SseResult> {
  const text = await response.text()
  return { response, text, ...parseFrames(text) }
}

export function parseFrames(text: string): { frames: SseFrame[]; events: StreamMessage[] } {
  const frames: SseFrame[] = []
  for (const raw of text.split("\n\n")) {
    if (!raw.trim() || raw.startsWith(":")) continue
    const lines = raw.split("\n")
    const event = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? ""
    const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6))
    if (data.length !== 1) throw new Error(`frame with ${data.length} data lines: ${raw}`)
    frames.push({ event, data: JSON.parse(data[0] ?? "null"), raw })
  }
  return { frames, events: frames.map((f) => ({ event: f.event, data: f.data }) as StreamMessage) }
}

/** The event of a given name, typed; fails the test when missing. */
export function eventOf<E extends StreamMessage["event"]>(
  events: readonly StreamMessage[],
  name: E,
  index = 0,
): EventData[E] {
  const found = events.filter((e) => e.event === name)[index]
  if (!found) throw new Error(`no ${name} event #${index} in ${events.map((e) => e.event).join(", ")}`)
  return found.data as EventData[E]
}

type EventData = { [M in StreamMessage as M["event"]]: M["data"] }

/** The provider request messages of call `n`. */
export function providerMessages(fake: FakeProvider, n: number): Array<Record<string, unknown>> {
  const body = fake.requests.filter((r) => r.path.endsWith("/chat/completions"))[n]?.body
  if (!body) throw new Error(`no provider request #${n}`)
  return body.messages as Array<Record<string, unknown>>
}

export function providerRequests(fake: FakeProvider): Array<Record<string, unknown>> {
  return fake.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.body ?? {})
}
