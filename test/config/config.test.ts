import { describe, expect, test } from "bun:test"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Config } from "../../src/core/config.ts"
import { ConfigError, RequestError } from "../../src/errors.ts"

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "dupin-config-")), "config.yaml")
  writeFileSync(path, text)
  return path
}

const MODEL_LIST = `
model: fast
modelList:
  fast:
    model: openai/gpt-4.1-mini
    api_key: "{{ env.FAST_KEY }}"
    temperature: 0
  accurate:
    model: anthropic/claude-sonnet-4-5
    api_key: "{{ env.MISSING_KEY }}"
    context_window: 50000
`

describe("Config.loadFromFile", () => {
  test("modelList: keys are the model names; the underlying id is refused with the valid keys", () => {
    const config = Config.loadFromFile(file(MODEL_LIST), { env: { FAST_KEY: "k" } })
    expect(config.modelNames()).toEqual(["fast", "accurate"])
    expect(config.createModel("fast").info.id).toBe("openai/gpt-4.1-mini")
    expect(config.createModel().name).toBe("fast")
    const wrong = (() => {
      try {
        config.createModel("openai/gpt-4.1-mini")
      } catch (e) {
        return e
      }
    })()
    expect(wrong).toBeInstanceOf(RequestError)
    expect((wrong as RequestError).status).toBe(400)
    expect((wrong as Error).message).toContain("Available models: fast, accurate")
  })

  test("a missing {{ env.X }} fails only when its model is used, naming the variable and key", () => {
    const path = file(MODEL_LIST)
    const config = Config.loadFromFile(path, { env: { FAST_KEY: "k" } })
    expect(() => config.createModel("fast")).not.toThrow()
    expect(() => config.createModel("accurate")).toThrow(
      `${path}: modelList.accurate.api_key uses {{ env.MISSING_KEY }}, but MISSING_KEY is not set.`,
    )
  })

  test("config overrides the catalog per model", () => {
    const config = Config.loadFromFile(file(MODEL_LIST), { env: { FAST_KEY: "k", MISSING_KEY: "m" } })
    expect(config.createModel("accurate").info.contextWindow).toBe(50_000)
  })

  test("unknown keys and wrong types name the file, the key path and the expected form", () => {
    const path = file("model: x\nlimits:\n  tool_timeout_max: ten\n")
    expect(() => Config.loadFromFile(path, { env: {} })).toThrow(
      `${path}: limits.tool_timeout_max: expected integer`,
    )
    const typo = file("modelList:\n  fast:\n    model: a\n    tempreature: 1\n")
    expect(() => Config.loadFromFile(typo, { env: {} })).toThrow("modelList.fast.tempreature: unknown key")
  })

  test("a default model that is not a modelList key is refused at load", () => {
    expect(() =>
      Config.loadFromFile(file(`${MODEL_LIST}\n`.replace("model: fast", "model: slow")), { env: {} }),
    ).toThrow("model: slow is not a modelList key")
  })

  test("server settings: file values with SVC_* variables on top", () => {
    const path = file('server:\n  port: 6000\n  auth_token: "{{ env.TOKEN }}"\n  approval_ttl: 60\n')
    const config = Config.loadFromFile(path, { env: { TOKEN: "t0k", SVC_PORT: "7000" } })
    expect(config.server.port).toBe(7000)
    expect(config.server.authToken).toBe("t0k")
    expect(config.server.approvalTtl).toBe(60)
    expect(config.server.host).toBe("127.0.0.1")
  })

  test("loadFromEnv reads SVC_CONFIG_PATH, else MODEL", () => {
    expect(Config.loadFromEnv({ MODEL: "openai/gpt-4o" }).modelNames()).toEqual(["openai/gpt-4o"])
    expect(Config.loadFromEnv({ SVC_CONFIG_PATH: file(MODEL_LIST), FAST_KEY: "k" }).modelNames()).toEqual([
      "fast",
      "accurate",
    ])
  })

  test("no model anywhere is a config error that says how to set one", () => {
    expect(() => new Config({ env: {} }).createModel()).toThrow(
      "No model configured: pass --model, set MODEL",
    )
  })

  test("bad environment values are config errors naming the variable", () => {
    expect(() => new Config({ env: { CONTEXT_WINDOW_COMPACTION_THRESHOLD_PCT: "lots" } })).toThrow(
      ConfigError,
    )
    expect(() => new Config({ env: { ENABLED_PROMPTS: "intro,nope" } })).toThrow(
      "ENABLED_PROMPTS has unknown section nope",
    )
  })
})

describe("toolsets from config", () => {
  test("built-in, config overrides, bash switch and custom files come together", () => {
    const custom = file(
      "toolsets:\n  team/tools:\n    description: Team\n    tools:\n      - name: team_hello\n        description: hi\n        command: echo hi\n",
    )
    const path = file(
      `model: openai/gpt-4o\ncustom_toolsets: [${custom}]\ntoolsets:\n  linux/host: { enabled: false }\n  bash: { enabled: true, config: { allow: ["kubectl rollout status"] } }\n`,
    )
    const config = Config.loadFromFile(path, { env: {} })
    const byName = Object.fromEntries(config.toolExecutor().toolsets.map((t) => [t.name, t]))
    expect(byName["linux/host"]?.enabled).toBe(false)
    expect(byName.bash?.enabled).toBe(true)
    expect(byName["team/tools"]?.enabled).toBe(true)
    expect(byName.core_investigation?.enabled).toBe(true)
  })

  test("{{ env.NAME }} is expanded in toolset config; a switched-off toolset needs no variable", () => {
    const path = file(
      'model: openai/gpt-4o\ntoolsets:\n  prometheus/metrics:\n    config:\n      prometheus_url: "{{ env.PROM_URL }}"\n  internet:\n    enabled: false\n    config: { headers: { "a.example": { X-Token: "{{ env.NOT_SET }}" } } }\n',
    )
    const config = Config.loadFromFile(path, { env: { PROM_URL: "http://127.0.0.1:9090" } })
    const prom = config.toolExecutor().toolsets.find((t) => t.name === "prometheus/metrics")
    expect(prom?.config.prometheus_url).toBe("http://127.0.0.1:9090")
    const missing = Config.loadFromFile(path, { env: {} })
    expect(() => missing.toolExecutor()).toThrow(
      "toolsets.prometheus/metrics.config.prometheus_url uses {{ env.PROM_URL }}",
    )
  })

  test("an unknown key under a code toolset is refused with its path", () => {
    const path = file("model: openai/gpt-4o\ntoolsets:\n  bash: { enabled: true, alow: [] }\n")
    expect(() => Config.loadFromFile(path, { env: {} }).toolExecutor()).toThrow(
      "toolsets.bash.alow: unknown key",
    )
  })
})
