/**
 * Issue 12 item 11: config booleans take `1/0/true/false/yes/no/on/off` in any case wherever the
 * config file and toolset files take a boolean (CONTRACT §3); errors under `toolsets.*` name the
 * file; a config with several errors reports them all (capped); a typo in a toolset's `config:`
 * is a config error (exit 2) naming file and key path, not a toolset that silently ends `failed`.
 */
import { describe, expect, test } from "bun:test"
import { Config } from "../../src/core/config.ts"
import { ConfigError } from "../../src/errors.ts"
import { runCli, SUBPROCESS_TIMEOUT_MS, tempFile } from "../cli/support.ts"

const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_API_KEY: "k" }
const BOOLEAN = "expected a boolean (true/false, yes/no, on/off or 1/0)"

function load(text: string, env: Record<string, string> = ENV): Config {
  return Config.loadFromFile(tempFile("dupin.yaml", text), { env })
}

function failure(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error("expected a ConfigError")
}

const TEAM_TOOLSET = (flags: string) => `toolsets:
  team/ops:
    description: Team tools
    enabled: ${flags}
    tools:
      - name: team_restart
        description: Restart a service
        command: "echo {{ service }}"
        requires_approval: YES
        parameters:
          service: { type: string, required: On, allow_leading_dash: 0 }
`

describe("config booleans", () => {
  test("every form, in any case, in the config file, toolset files and code toolsets' config", () => {
    const forms: Array<[string, boolean]> = [
      ["yes", true],
      ["No", false],
      ["ON", true],
      ["off", false],
      ["1", true],
      ["0", false],
      ["True", true],
      ['"false"', false],
      ['"yes"', true],
    ]
    for (const [form, value] of forms) {
      const config = load(`modelList:\n  m:\n    model: openai/gpt-4o\n    supports_vision: ${form}\n`)
      expect(config.modelList?.m?.supports_vision).toBe(value)
    }
    const custom = tempFile("team.yaml", TEAM_TOOLSET("yes"))
    const config = load(
      `model: openai/gpt-4o\ncustom_toolsets: [${custom}]\ntoolsets:\n  bash: { enabled: on }\n  docker/core: { enabled: "OFF" }\n  internet:\n    enabled: Yes\n    config: { allow_private: yes }\n`,
    )
    const byName = Object.fromEntries(config.toolExecutor().toolsets.map((t) => [t.name, t]))
    expect(byName.bash?.enabled).toBe(true)
    expect(byName["docker/core"]?.enabled).toBe(false)
    expect(byName.internet?.config).toEqual({ allow_private: true })
    expect(byName["team/ops"]?.enabled).toBe(true)
    const tool = byName["team/ops"]?.tools[0]
    if (!tool) throw new Error("team/ops has no tool")
    expect(tool.requiresApproval({ service: "web" })).toBeTruthy()
    expect((tool.toSchema().function.parameters as { required?: string[] }).required).toEqual(["service"])
  })

  test("a boolean parameter's default takes the forms too, and the model may omit the value", async () => {
    const toolset = (value: string) =>
      tempFile(
        "flags.yaml",
        `toolsets:\n  team/flags:\n    description: Flags\n    tools:\n      - name: follow_logs\n        description: Logs\n        command: "echo {{ follow }}"\n        parameters:\n          follow: { type: boolean, required: false, default: ${value} }\n`,
      )
    const config = load(`custom_toolsets: [${toolset("yes")}]\n`)
    const executor = config.toolExecutor()
    const schema = executor.toolsByName.follow_logs?.toSchema().function.parameters as {
      properties: Record<string, { default?: unknown }>
    }
    expect(schema.properties.follow?.default).toBe(true)
    const call = { id: "c1", type: "function" as const, function: { name: "follow_logs", arguments: "{}" } }
    await executor.ensureReady()
    expect(executor.prepare(call).error).toBeUndefined()
    const bad = toolset("maybe")
    expect(failure(() => load(`custom_toolsets: [${bad}]\n`).toolExecutor())).toBe(
      `${bad}: toolsets.team/flags.tools[0].parameters.follow.default: ${BOOLEAN}`,
    )
  })

  test("anything else is a config error naming the file, the key and the forms", () => {
    const path = tempFile(
      "dupin.yaml",
      "modelList:\n  m:\n    model: openai/gpt-4o\n    supports_vision: maybe\n",
    )
    expect(failure(() => Config.loadFromFile(path, { env: ENV }))).toBe(
      `${path}: modelList.m.supports_vision: ${BOOLEAN}`,
    )
    const custom = tempFile("team.yaml", TEAM_TOOLSET("sometimes"))
    const config = load(`model: openai/gpt-4o\ncustom_toolsets: [${custom}]\n`)
    expect(failure(() => config.toolExecutor())).toBe(`${custom}: toolsets.team/ops.enabled: ${BOOLEAN}`)
    const inline = load("model: openai/gpt-4o\ntoolsets:\n  internet:\n    config: { allow_private: si }\n")
    expect(failure(() => inline.toolExecutor())).toBe(
      `${inline.configFile}: toolsets.internet.config.allow_private: ${BOOLEAN}`,
    )
  })
})

describe("errors under toolsets.* name the file", () => {
  test("inline in the config file: a YAML toolset, a code toolset's config, an unset variable", () => {
    const yaml = load(
      "toolsets:\n  team/x:\n    description: d\n    tools: [{ name: t, description: d, command: x, timeot: 3 }]\n",
    )
    expect(failure(() => yaml.toolExecutor())).toStartWith(
      `${yaml.configFile}: toolsets.team/x.tools[0].timeot: unknown key`,
    )
    const variable = load(
      'toolsets:\n  prometheus/metrics:\n    config: { prometheus_url: "{{ env.DUPIN_TEST_PROM }}" }\n',
    )
    expect(failure(() => variable.toolExecutor())).toBe(
      `${variable.configFile}: toolsets.prometheus/metrics.config.prometheus_url uses {{ env.DUPIN_TEST_PROM }}, but DUPIN_TEST_PROM is not set.`,
    )
  })

  test("in a custom toolset file: a code toolset's config typo names that file and the key path", () => {
    const custom = tempFile("team.yaml", "toolsets:\n  internet:\n    config: { timeout: 5 }\n")
    const config = load(`custom_toolsets: [${custom}]\n`)
    expect(failure(() => config.toolExecutor())).toBe(
      `${custom}: toolsets.internet.config.timeout: unknown key. Allowed keys here: allow_private, allowed_hosts, egress_allowlist, headers, timeout_seconds, max_download_bytes, max_output_chars.`,
    )
  })
})

describe("a config with several errors reports them all", () => {
  test("one line each with file, key path and expected form; capped at 20 with the rest counted", () => {
    const path = tempFile(
      "dupin.yaml",
      "max_steps: many\nmodelList:\n  m:\n    model: openai/gpt-4o\n    tempreature: 1\nserver:\n  port: http\n",
    )
    expect(failure(() => Config.loadFromFile(path, { env: ENV })).split("\n")).toEqual([
      `${path}: max_steps: expected integer (got "many").`,
      `${path}: modelList.m.tempreature: unknown key. Did you mean temperature? Allowed keys here: model, api_key, api_base, api_version, temperature, context_window, max_output_tokens, supports_vision, input_cost_per_token, output_cost_per_token.`,
      `${path}: server.port: expected integer (got "http").`,
    ])
    const many = Array.from({ length: 25 }, (_, i) => `  typo_${i}: 1`).join("\n")
    const lines = failure(() => load(`limits:\n${many}\n`)).split("\n")
    expect(lines).toHaveLength(21)
    expect(lines[0]).toMatch(/dupin\.yaml: limits\.typo_0: unknown key/)
    expect(lines[19]).toMatch(/limits\.typo_19: unknown key/)
    expect(lines[20]).toBe("and 5 more errors")
    // A missing key is one error, though TypeBox reports it twice ("required" and its type).
    const entries = Array.from({ length: 22 }, (_, i) => `  m${i}: { temperature: 0 }`).join("\n")
    const missing = failure(() => load(`modelList:\n${entries}\n`)).split("\n")
    expect(missing).toHaveLength(21)
    expect(missing[0]).toMatch(/dupin\.yaml: modelList\.m0\.model: required, but missing$/)
    expect(missing[20]).toBe("and 2 more errors")
  })

  test("errors across toolsets: the config's map, code toolsets' config and every custom file, together", () => {
    const first = tempFile("team.yaml", TEAM_TOOLSET("sometimes"))
    const second = tempFile(
      "more.yaml",
      "toolsets:\n  internet:\n    config: { timeout: 5 }\n  team/more:\n    description: d\n    tools: [{ name: m, description: d, command: x, timeot: 3 }]\n",
    )
    const config = load(
      `custom_toolsets: [${first}, ${second}]\ntoolsets:\n  docker/core: { enabled: maybe }\n  bash:\n    config: { alow: [ls] }\n  prometheus/metrics:\n    config: { prometheus_url: "{{ env.DUPIN_TEST_PROM }}" }\n`,
    )
    const lines = failure(() => config.toolExecutor()).split("\n")
    expect(lines).toEqual(
      expect.arrayContaining([
        `${config.configFile}: toolsets.docker/core.enabled: ${BOOLEAN}`,
        `${config.configFile}: toolsets.bash.config.alow: unknown key. Did you mean allow? Allowed keys here: allow, deny.`,
        `${config.configFile}: toolsets.prometheus/metrics.config.prometheus_url uses {{ env.DUPIN_TEST_PROM }}, but DUPIN_TEST_PROM is not set.`,
        `${first}: toolsets.team/ops.enabled: ${BOOLEAN}`,
        expect.stringMatching(/more\.yaml: toolsets\.team\/more\.tools\[0\]\.timeot: unknown key/),
      ]),
    )
    expect(lines).toHaveLength(5)
  })

  test("a broken MCP server entry is reported once: its toolsets.<server> switch is not an unknown toolset", () => {
    const config = load(
      "mcp_servers:\n  grafana: { url: 5 }\ntoolsets:\n  grafana: { enabled: true }\n  bash:\n    config: { alow: [ls] }\n",
    )
    expect(failure(() => config.toolExecutor()).split("\n")).toEqual([
      `${config.configFile}: mcp_servers.grafana.url: expected a string`,
      `${config.configFile}: toolsets.bash.config.alow: unknown key. Did you mean allow? Allowed keys here: allow, deny.`,
    ])
  })

  test("a toolset file's checks beyond its schema name every problem: placeholder typos, names, patterns", () => {
    const custom = tempFile(
      "team.yaml",
      `toolsets:
  team/a:
    description: A
    tools:
      - name: restart
        description: Restart
        command: "systemctl restart {{ servce }}"
        parameters: { service: { type: string } }
      - name: "bad name"
        description: Bad
        command: "echo x"
  team/b:
    description: B
    tools:
      - name: grep_logs
        description: Grep
        command: "grep {{ pattern }} /var/log/syslog"
        parameters: { pattern: { type: string, pattern: "(" } }
`,
    )
    const config = load(`custom_toolsets: [${custom}]\n`)
    const lines = failure(() => config.toolExecutor()).split("\n")
    expect(lines).toHaveLength(3)
    expect(lines[0]).toStartWith(`${custom}: toolsets.team/a.tools[0].command: uses undeclared "servce"`)
    expect(lines[1]).toStartWith(`${custom}: toolsets.team/a.tools[1].name: "bad name" must match`)
    expect(lines[2]).toBe(
      `${custom}: toolsets.team/b.tools[0].parameters.pattern.pattern: not a valid regular expression`,
    )
  })

  test("the config file's own errors and its toolsets' come in one report", () => {
    const custom = tempFile("team.yaml", TEAM_TOOLSET("sometimes"))
    const path = tempFile(
      "dupin.yaml",
      `max_steps: many\ncustom_toolsets: [${custom}]\ntoolsets:\n  docker/core: { enabled: maybe }\n  bash:\n    config: { alow: [ls] }\n`,
    )
    expect(failure(() => Config.loadFromFile(path, { env: ENV })).split("\n")).toEqual([
      `${path}: max_steps: expected integer (got "many").`,
      `${custom}: toolsets.team/ops.enabled: ${BOOLEAN}`,
      `${path}: toolsets.docker/core.enabled: ${BOOLEAN}`,
      `${path}: toolsets.bash.config.alow: unknown key. Did you mean allow? Allowed keys here: allow, deny.`,
    ])
    // Toolsets of the wrong shape are the schema's to report, once.
    const shape = tempFile("dupin.yaml", "max_steps: many\ntoolsets: [bash]\n")
    expect(failure(() => Config.loadFromFile(shape, { env: ENV })).split("\n")).toEqual([
      `${shape}: max_steps: expected integer (got "many").`,
      `${shape}: toolsets: expected object (got ["bash"]).`,
    ])
  })

  test(
    "the CLI prints each on its own line and exits 2; a toolset config typo exits 2 too",
    async () => {
      const path = tempFile("dupin.yaml", "model: openai/gpt-4o\nmax_steps: many\nserver:\n  port: http\n")
      const result = await runCli(["models", "--config", path])
      expect(result.code).toBe(2)
      expect(result.stderr.trimEnd().split("\n")).toEqual([
        `dupin: ${path}: max_steps: expected integer (got "many").`,
        `dupin: ${path}: server.port: expected integer (got "http").`,
      ])
      const typo = tempFile(
        "dupin.yaml",
        "model: openai/gpt-4o\ntoolsets:\n  bash:\n    config: { alow: [ls] }\n",
      )
      const toolsets = await runCli(["toolsets", "list", "--json", "--config", typo])
      expect(toolsets.code).toBe(2)
      expect(toolsets.stderr).toBe(
        `dupin: ${typo}: toolsets.bash.config.alow: unknown key. Did you mean allow? Allowed keys here: allow, deny.\n`,
      )
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
