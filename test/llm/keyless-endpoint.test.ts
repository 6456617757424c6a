/**
 * An OpenAI-compatible server the operator points dupin at (vLLM, llama.cpp, LM Studio) often needs
 * no key (CONTRACT §4: `api_base` makes any such server work). Such a model is callable without a
 * key, its calls carry no Authorization header, and readiness agrees. A provider's own endpoint
 * and Azure still need a key, named in the error.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { Config } from "../../src/core/config.ts"
import { ConfigError } from "../../src/errors.ts"
import { resolveEndpoint } from "../../src/llm/providers.ts"
import { type RunningServer, startServer } from "../../src/server/server.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

let fake: FakeProvider | undefined
let server: RunningServer | undefined
afterEach(async () => {
  await server?.shutdown(100)
  server = undefined
  await fake?.stop()
  fake = undefined
})

describe("resolveEndpoint without a key", () => {
  test("api_base or a base variable the operator set: no key, none sent", () => {
    expect(resolveEndpoint({ id: "openai/qwen3-8b", apiBase: "http://gpu:8000/v1" }, {})).toMatchObject({
      apiKey: null,
      baseURL: "http://gpu:8000/v1",
    })
    expect(resolveEndpoint({ id: "qwen3-8b" }, { OPENAI_BASE_URL: "http://gpu:8080/v1" }).apiKey).toBeNull()
    expect(resolveEndpoint({ id: "groq/llama" }, { GROQ_API_BASE: "http://proxy:4000/v1" }).apiKey).toBeNull()
  })

  test("a provider's own endpoint and Azure still need a key, named in the error", () => {
    expect(() => resolveEndpoint({ id: "openai/gpt-4.1" }, {})).toThrow(ConfigError)
    expect(() => resolveEndpoint({ id: "openai/gpt-4.1" }, {})).toThrow(/set OPENAI_API_KEY or api_key/)
    expect(() => resolveEndpoint({ id: "azure/deploy", apiBase: "https://r.openai.azure.com/" }, {})).toThrow(
      /No API key for model azure\/deploy: set AZURE_API_KEY/,
    )
  })
})

describe("a keyless api_base model through the config", () => {
  test("is callable, streamed or not, and sends no Authorization header", async () => {
    const provider = await startFakeProvider()
    fake = provider
    provider.script({ content: "hello" }, { content: "streamed hello" })
    const config = new Config({ model: "openai/qwen3-8b", apiBase: provider.url, env: {} })
    expect(config.modelProblem("openai/qwen3-8b")).toBeUndefined()
    const model = config.createModel()
    expect((await model.complete({ messages: [{ role: "user", content: "hi" }] })).content).toBe("hello")
    let text = ""
    const streamed = await model.complete(
      { messages: [{ role: "user", content: "hi" }] },
      undefined,
      (delta) => {
        text += delta
      },
    )
    expect(streamed.content).toBe("streamed hello")
    expect(text).toBe("streamed hello")
    expect(provider.requests).toHaveLength(2)
    for (const request of provider.requests) {
      expect(request.headers.authorization).toBeUndefined()
      expect(request.headers["api-key"]).toBeUndefined()
    }
  })

  test("a configured key is still sent", async () => {
    const provider = await startFakeProvider()
    fake = provider
    provider.script({ content: "ok" })
    const config = new Config({
      model: "openai/qwen3-8b",
      apiBase: provider.url,
      apiKey: "sk-local",
      env: {},
    })
    await config.createModel().complete({ messages: [{ role: "user", content: "hi" }] })
    expect(provider.requests[0]?.headers.authorization).toBe("Bearer sk-local")
  })

  test("serve is ready with it: /readyz 200, /api/info ready", async () => {
    server = startServer(
      new Config({
        modelList: { local: { model: "openai/qwen3-8b", api_base: "http://127.0.0.1:9/v1" } },
        toolsets: { "kubernetes/core": { enabled: false } },
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      }),
      { port: 0, drainMs: 0 },
    )
    const ready = await fetch(`${server.url}/readyz`)
    expect(ready.status).toBe(200)
    const info = (await (await fetch(`${server.url}/api/info`)).json()) as Record<string, unknown>
    expect(info).toMatchObject({ ready: true, not_ready_reason: null })
  })
})
