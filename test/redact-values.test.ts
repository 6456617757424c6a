import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { History } from "../src/cli/editor/history.ts"
import { Config } from "../src/core/config.ts"
import { PROVIDERS, type ProviderName } from "../src/llm/providers.ts"
import { log, setLogLevel, setLogSink } from "../src/log.ts"
import { redactOffLoop } from "../src/offloop/redact.ts"
import { redact } from "../src/redact.ts"
import { addSecretValues } from "../src/redact-values.ts"
import { createRuntime } from "../src/runtime/runtime.ts"
import { resetContainment } from "../src/tool/containment/index.ts"

// createRuntime applies the config's containment, which is process-wide: leave none behind.
afterAll(() => resetContainment())

// Issue 21 item 8: keys without an uppercase letter (DeepSeek, OpenRouter) were redacted nowhere,
// and a configured key of no known shape was written to the history file when pasted.
describe("secrets redacted by shape and by configured value", () => {
  test("DeepSeek and OpenRouter keys are redacted by shape", () => {
    const deepseek = `sk-${"0123456789abcdef".repeat(2)}`
    const openrouter = `sk-or-v1-${"0123456789abcdef".repeat(4)}`
    expect(redact(`key ${deepseek} end`)).toBe("key [REDACTED] end")
    expect(redact(`key ${openrouter} end`)).toBe("key [REDACTED] end")
  })

  test("a configured key of no known shape is hidden in tool output, logs and history", () => {
    const mistral = "Qx7rT2mvL9aPz3Kd8WnB4cYe6HjU1sFo"
    const literal = "plain-literal-key-in-the-config"
    new Config({ model: "mistral/mistral-large-latest", apiKey: literal, env: { MISTRAL_API_KEY: mistral } })
    expect(redact(`curl said: ${mistral}`)).toBe("curl said: [REDACTED]")
    expect(redact(`echo ${literal}`)).toBe("echo [REDACTED]")

    const lines: string[] = []
    const sink = setLogSink((line) => lines.push(line))
    const level = setLogLevel("INFO")
    try {
      log.info("provider answered", { body: `bad key ${mistral}` })
    } finally {
      setLogSink(sink)
      setLogLevel(level)
    }
    expect(lines.join("\n")).not.toContain(mistral)

    const path = join(mkdtempSync(join(tmpdir(), "dupin-history-")), "history")
    const history = new History(path)
    expect(history.add(`my key is ${mistral}`)).toBe(false)
    history.add("why is the disk full?")
    expect(readFileSync(path, "utf8")).not.toContain(mistral)
  })

  test("an ordinary variable is not a secret: a namespace stays readable", () => {
    new Config({ model: "openai/gpt-4.1", env: { NAMESPACE: "monitoring-prod", OPENAI_API_KEY: "k" } })
    expect(redact("pods in monitoring-prod")).toBe("pods in monitoring-prod")
  })
})

test("a configured secret value is redacted in an output long enough to be redacted off the event loop", async () => {
  // No shape rule knows a passphrase: only the configured value can hide it.
  const secret = "correct-horse-battery-staple-42"
  addSecretValues([secret])
  const long = `${"line of ordinary output\n".repeat(20_000)}it says ${secret} here\n`
  const out = await redactOffLoop(long, new AbortController().signal)
  expect(out).not.toContain(secret)
  expect(out).toContain("[REDACTED]")
})

// Issue 21 item 8, the class: every secret the config names, wherever in the config it is, is
// hidden by value in tool output (redact), logs and the history file, whatever its shape.
describe("every secret a config names is hidden by value", () => {
  test("toolset and MCP credentials, {{ env.X }} values, store and alert URLs, a toolset file's config", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dupin-secrets-"))
    const secrets = {
      toolsetLiteral: "grafana-literal-8f3k2m", // a literal under api_key in toolsets:
      toolsetEnv: "viaenv-ordinary-name-77q", // {{ env.GRAFANA_SA }}: the name says nothing, the key does
      tokenLike: "Zt8fK2pQ9wLx4mN7vB3cR6yH", // {{ env.UPSTREAM }} in a plain key: the value looks like a token
      header: "hdr-bearer-value-5521x", // Authorization: Bearer … of a toolset's config
      mcpEnv: "mcp-env-token-90210abc", // an MCP server's env under a credential name
      mcpHeader: "mcp-header-key-31337zz",
      pgPassword: "pg-pass-w0rd-Hx", // store.url's password, from the environment
      sinkHeader: "sink-header-token-4242", // a webhook sink's header
      slack: "https://hooks.slack.com/services/T0AAA/B0BBB/slackpathsecret", // the URL is the credential
      fileConfig: "file-config-secret-6060", // a custom toolset file's config:, expanded by the loader
      toolsetEnvList: "Zq9sessionvalue4Wk8x2Lm", // a variable a toolset file passes its commands (env:)
    }
    writeFileSync(
      join(dir, "team.yaml"),
      `toolsets:\n  team/api:\n    description: d\n    env: [TEAM_SESSION]\n    config:\n      password: "{{ env.TEAM_PW }}"\n` +
        "    tools:\n      - { name: team_echo, description: d, command: echo hi }\n",
    )
    const config = join(dir, "config.yaml")
    writeFileSync(
      config,
      `model: openai/gpt-4.1
api_key: k-for-the-test
custom_toolsets: [team.yaml]
toolsets:
  prometheus/metrics:
    enabled: false
    config:
      api_key: ${secrets.toolsetLiteral}
      sa_token: "{{ env.GRAFANA_SA }}"
      upstream: "{{ env.UPSTREAM }}"
      headers: { Authorization: "Bearer ${secrets.header}" }
mcp_servers:
  remote:
    enabled: false
    url: http://127.0.0.1:9/mcp
    config:
      headers: { X-Api-Key: ${secrets.mcpHeader} }
      env: { SERVICE_TOKEN: ${secrets.mcpEnv} }
store:
  url: "postgres://dupin:{{ env.PG_PW }}@db:5432/dupin"
alerts:
  sinks:
    - { type: webhook, url: "https://hooks.example/x", headers: { X-Token: ${secrets.sinkHeader} } }
    - { type: slack, webhook_url: "${secrets.slack}" }
`,
    )
    const loaded = Config.loadFromFile(config, {
      env: {
        GRAFANA_SA: secrets.toolsetEnv,
        UPSTREAM: secrets.tokenLike,
        PG_PW: secrets.pgPassword,
        TEAM_PW: secrets.fileConfig,
        TEAM_SESSION: secrets.toolsetEnvList,
      },
    })
    await createRuntime(loaded).executor.ensureReady()

    const text = Object.values(secrets).join(" | ")
    const leaked = (out: string) =>
      Object.keys(secrets).filter((k) => out.includes(secrets[k as keyof typeof secrets]))
    expect(leaked(redact(`tool said: ${text}`))).toEqual([])

    const lines: string[] = []
    const sink = setLogSink((line) => lines.push(line))
    const level = setLogLevel("INFO")
    try {
      log.info("delivery failed", { body: text })
    } finally {
      setLogSink(sink)
      setLogLevel(level)
    }
    expect(leaked(lines.join("\n"))).toEqual([])

    const history = new History(join(dir, "history"))
    const kept = Object.entries(secrets).filter(([, value]) => history.add(`is ${value} right?`))
    expect(kept.map(([where]) => where)).toEqual([])
  })

  test("an ordinary config value stays readable", () => {
    new Config({
      model: "openai/gpt-4.1",
      env: { OPENAI_API_KEY: "k", NS: "payments-prod" },
      toolsets: { "kubernetes/core": { config: { namespace: "{{ env.NS }}", context: "prod-eu-1" } } },
    })
    expect(redact("pods in payments-prod on prod-eu-1")).toBe("pods in payments-prod on prod-eu-1")
  })
})

// Issue 21 item 8, the shape rules: every provider dupin supports has its key's shape redacted,
// or its keys have no shape (then only the configured value hides them, tested above).
describe("provider key shapes", () => {
  const hex = (n: number) => "0123456789abcdef".repeat(8).slice(0, n)
  const mixed = (n: number) => "Ab3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz".repeat(6).slice(0, n)
  const SAMPLE: Record<ProviderName, string | "no shape" | "no key"> = {
    openai: `sk-proj-${mixed(48)}_${mixed(60)}`,
    azure: "no shape", // 32 hex characters or 84 letters and digits, no prefix
    anthropic: `sk-ant-api03-${mixed(93)}AA`,
    gemini: `AIza${mixed(35)}`,
    ollama: "no key",
    openrouter: `sk-or-v1-${hex(64)}`,
    groq: `gsk_${mixed(52)}`,
    mistral: "no shape", // 32 letters and digits, no prefix
    deepseek: `sk-${hex(32)}`,
    xai: `xai-${mixed(80)}`,
  }

  test("each provider of src/llm is listed, and each listed shape is redacted in prose", () => {
    expect(Object.keys(SAMPLE).sort()).toEqual(Object.keys(PROVIDERS).sort())
    for (const [provider, sample] of Object.entries(SAMPLE)) {
      if (sample === "no shape" || sample === "no key") continue
      expect(redact(`my ${provider} key is ${sample} ok`), provider).toBe(
        `my ${provider} key is [REDACTED] ok`,
      )
    }
  })

  test("keys without a shape are hidden once they are in the environment", () => {
    const mistral = mixed(32)
    const azure = hex(32).toUpperCase().replace(/[A-F]/g, "e")
    new Config({
      model: "openai/gpt-4.1",
      env: { OPENAI_API_KEY: "k", MISTRAL_API_KEY: mistral, AZURE_API_KEY: azure },
    })
    expect(redact(`${mistral} and ${azure}`)).toBe("[REDACTED] and [REDACTED]")
  })
})
