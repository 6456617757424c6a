/**
 * `server.auth_token` / `server.approval_secret` written as `{{ env.X }}` with X unset: only
 * `serve`, which uses them, refuses to start (one line naming the key and X, exit 2); `ask`,
 * `models`, `toolsets` and `Config.loadFromFile` never read them and work (CONTRACT §4).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { join } from "node:path"
import { Config } from "../../src/core/config.ts"
import { ConfigError } from "../../src/errors.ts"
import { cliEnv, runCli, SUBPROCESS_TIMEOUT_MS, tempFile } from "../cli/support.ts"
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts"

const EXAMPLE = join(import.meta.dir, "../../deploy/config.example.yaml")
const SERVER = `server:
  auth_token: "{{ env.DUPIN_TEST_UNSET_TOKEN }}"
  approval_secret: "{{ env.DUPIN_TEST_UNSET_SECRET }}"
`

let fake: FakeProvider
beforeAll(async () => {
  fake = await startFakeProvider()
})
afterAll(async () => {
  await fake.stop()
})

function configFile(): string {
  return tempFile("dupin.yaml", `model: openai/gpt-4o\ntoolsets:\n  bash: { enabled: false }\n${SERVER}`)
}

describe("server secrets from unset variables", () => {
  test("Config.loadFromFile loads; reading a secret names the file, the key and the variable", () => {
    const path = configFile()
    const config = Config.loadFromFile(path, { env: {} })
    expect(config.modelNames()).toEqual(["openai/gpt-4o"])
    expect(() => config.server.authToken).toThrow(ConfigError)
    expect(() => config.server.authToken).toThrow(
      `${path}: server.auth_token uses {{ env.DUPIN_TEST_UNSET_TOKEN }}, but DUPIN_TEST_UNSET_TOKEN is not set.`,
    )
    expect(() => config.server.approvalSecret).toThrow(
      "server.approval_secret uses {{ env.DUPIN_TEST_UNSET_SECRET }}",
    )
    // Set later or elsewhere: the value is read when used.
    const set = Config.loadFromFile(path, {
      env: { DUPIN_TEST_UNSET_TOKEN: "t0k", DUPIN_TEST_UNSET_SECRET: "s" },
    })
    expect(set.server.authToken).toBe("t0k")
    expect(set.server.approvalSecret).toBe("s")
  })

  test(
    "a variable set but empty is refused where the secret is read, naming it: no silent serve without auth",
    async () => {
      const path = configFile()
      const env = { DUPIN_TEST_UNSET_TOKEN: "", DUPIN_TEST_UNSET_SECRET: " " }
      const config = Config.loadFromFile(path, { env })
      expect(config.modelNames()).toEqual(["openai/gpt-4o"])
      expect(() => config.server.authToken).toThrow(
        `${path}: server.auth_token is empty (DUPIN_TEST_UNSET_TOKEN is set but empty): give it a value, or remove the key to serve without it.`,
      )
      expect(() => config.server.approvalSecret).toThrow("DUPIN_TEST_UNSET_SECRET is set but empty")
      const serve = await runCli(["serve", "--config", path, "--port", "0"], { env: { ...cliEnv(), ...env } })
      expect(serve.code).toBe(2)
      expect(serve.stderr).toContain("server.auth_token is empty (DUPIN_TEST_UNSET_TOKEN is set but empty)")
      expect(serve.stderr).not.toContain("listening")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test("deploy/config.example.yaml loads and builds its model and toolsets with SVC_* unset", () => {
    const config = Config.loadFromFile(EXAMPLE, { env: { OPENAI_API_KEY: "sk-test" } })
    expect(config.modelNames()).toEqual(["fast", "accurate"])
    expect(config.createModel("fast").info.id).toBe("openai/gpt-4.1-mini")
    expect(config.toolExecutor().toolsets.map((t) => t.name)).toContain("kubernetes/core")
    expect(() => config.server.authToken).toThrow("SVC_AUTH_TOKEN is not set")
  })

  test(
    "ask, models and toolsets work with the variables unset",
    async () => {
      const config = configFile()
      fake.script({ content: "All good." })
      const ask = await runCli(["ask", "--config", config, "--no-interactive", "is it up?"], {
        env: cliEnv(fake),
      })
      expect(ask.stderr).toBe("")
      expect(ask).toMatchObject({ code: 0, stdout: "All good.\n" })
      const models = await runCli(["models", "--config", config, "--json"], { env: cliEnv() })
      expect(models.code).toBe(0)
      expect(models.stdout).toContain("openai/gpt-4o")
      const toolsets = await runCli(["toolsets", "list", "--json", "--config", config], { env: cliEnv() })
      expect(toolsets.stderr).not.toContain("DUPIN_TEST_UNSET")
      expect(toolsets.code).toBe(0)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "serve refuses to start with one line naming the key and the variable, exit 2",
    async () => {
      const serve = await runCli(["serve", "--config", configFile(), "--port", "0"], { env: cliEnv() })
      expect(serve.code).toBe(2)
      const lines = serve.stderr.trimEnd().split("\n")
      expect(lines.at(-1)).toMatch(
        /^dupin: .*dupin\.yaml: server\.auth_token uses \{\{ env\.DUPIN_TEST_UNSET_TOKEN \}\}, but DUPIN_TEST_UNSET_TOKEN is not set\.$/,
      )
      expect(serve.stderr).not.toContain("listening")
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
