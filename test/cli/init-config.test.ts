import { describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PtySession } from "./pty.ts"
import { cliEnv, runCli, SUBPROCESS_TIMEOUT_MS } from "./support.ts"

function dir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** A config whose only model is named `name`, so `dupin models` shows which file was read. */
function writeConfig(path: string, name: string): void {
  mkdirSync(join(path, ".."), { recursive: true })
  writeFileSync(path, `model: ${name}\nmodelList:\n  ${name}:\n    model: openai/gpt-4o\n`)
}

describe("the default config location (CONTRACT §2)", () => {
  test(
    "$XDG_CONFIG_HOME/dupin/config.yaml, else ~/.config/dupin/config.yaml; SVC_CONFIG_PATH and --config win",
    async () => {
      const home = dir("dupin-home-")
      const xdg = dir("dupin-xdg-")
      writeConfig(join(xdg, "dupin", "config.yaml"), "from-xdg")
      writeConfig(join(home, ".config", "dupin", "config.yaml"), "from-home")
      const explicit = join(dir("dupin-cfg-"), "c.yaml")
      writeConfig(explicit, "from-flag")

      const models = async (extra: Record<string, string>, args: string[] = []) => {
        const result = await runCli(["models", "--json", ...args], {
          env: { ...cliEnv(), HOME: home, ...extra },
        })
        expect(result.stderr).toBe("")
        return (JSON.parse(result.stdout) as { model_name: string[] }).model_name
      }
      expect(await models({ XDG_CONFIG_HOME: xdg })).toEqual(["from-xdg"])
      // Unset or empty XDG_CONFIG_HOME: the file under HOME.
      expect(await models({})).toEqual(["from-home"])
      expect(await models({ XDG_CONFIG_HOME: "" })).toEqual(["from-home"])
      expect(await models({ XDG_CONFIG_HOME: xdg, SVC_CONFIG_PATH: explicit })).toEqual(["from-flag"])
      expect(await models({ XDG_CONFIG_HOME: xdg }, ["--config", explicit])).toEqual(["from-flag"])
      // No file at the default path: no config, the model from MODEL.
      expect(await models({ XDG_CONFIG_HOME: dir("dupin-empty-"), MODEL: "openai/gpt-4o" })).toEqual([
        "openai/gpt-4o",
      ])
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

describe("dupin init", () => {
  test(
    "writes a 0600 starter config that `dupin models` and `dupin toolsets` load, and refuses to overwrite it",
    async () => {
      const xdg = dir("dupin-xdg-")
      const env = cliEnv(undefined, { XDG_CONFIG_HOME: join(xdg, "nested") })
      const path = join(xdg, "nested", "dupin", "config.yaml")
      const init = await runCli(["init"], { env })
      expect(init.code).toBe(0)
      expect(init.stdout).toContain(`Wrote ${path}`)
      expect(init.stdout).toContain("export OPENAI_API_KEY=")
      expect(init.stdout).toContain('dupin ask "')
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(statSync(join(xdg, "nested", "dupin")).mode & 0o777).toBe(0o700)
      const written = readFileSync(path, "utf8")
      expect(written).toContain('api_key: "{{ env.OPENAI_API_KEY }}"')
      expect(written).toMatch(/^# /)

      const models = await runCli(["models", "--json"], { env })
      expect(models.code).toBe(0)
      expect(JSON.parse(models.stdout).model_name).toEqual(["openai/gpt-4.1"])
      const toolsets = await runCli(["toolsets", "--json"], { env })
      expect(toolsets.code).toBe(0)
      expect(JSON.parse(toolsets.stdout).length).toBeGreaterThan(0)

      const again = await runCli(["init"], { env })
      expect(again.code).toBe(2)
      expect(again.stderr.trim().split("\n")).toEqual([
        `dupin: ${path} already exists; edit it, or pass --config FILE to write another`,
      ])
      expect(readFileSync(path, "utf8")).toBe(written)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "on a terminal it asks for the provider by number, and --config writes elsewhere",
    async () => {
      const path = join(dir("dupin-cfg-"), "sub", "dupin.yaml")
      const session = new PtySession(["init", "--config", path], cliEnv(), tmpdir())
      await session.waitFor("Choose 1-")
      session.type("9\r")
      await session.waitFor("is not one of the choices")
      session.type("2\r")
      expect(await session.exited()).toBe(0)
      expect(session.output).toContain(`dupin ask --config ${path}`)
      const written = readFileSync(path, "utf8")
      expect(written).toContain("model: anthropic/claude-sonnet-4-5")
      expect(written).toContain('api_key: "{{ env.ANTHROPIC_API_KEY }}"')
      expect(statSync(path).mode & 0o777).toBe(0o600)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

// Issue 21 item 5: an operator with a server of their own (vLLM, LiteLLM, llama.cpp).
describe("dupin init for a server of one's own, and for scripts", () => {
  test(
    "the menu's server choice asks URL, model, optional key and context window; no key is demanded",
    async () => {
      const path = join(dir("dupin-cfg-"), "dupin.yaml")
      const session = new PtySession(["init", "--config", path], cliEnv(), tmpdir())
      await session.waitFor("Choose 1-8")
      session.type("8\r")
      await session.waitFor("Server URL")
      session.type("not a url\r")
      await session.waitFor("must be an http")
      session.type("http://127.0.0.1:8000/v1\r")
      await session.waitFor("Model name")
      session.type("qwen2.5-coder\r")
      await session.waitFor("Variable holding its key")
      session.type("\r")
      await session.waitFor("Context window")
      session.type("16384\r")
      expect(await session.exited()).toBe(0)
      expect(session.output).not.toContain("export ")
      const written = readFileSync(path, "utf8")
      expect(written).toContain("model: openai/qwen2.5-coder")
      expect(written).toContain("api_base: http://127.0.0.1:8000/v1")
      expect(written).toContain("api_key: null")
      expect(written).toContain("context_window: 16384")
      // It loads, and the model is callable without any key variable.
      const models = await runCli(["models", "--json", "--config", path], { env: cliEnv() })
      expect(models.stderr).toBe("")
      const listed = JSON.parse(models.stdout) as { models: Array<{ context_window: number }> }
      expect(listed.models[0]?.context_window).toBe(16384)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "an existing file is refused before any question; flags write without a menu; ollama gets a context_window",
    async () => {
      const existing = join(dir("dupin-cfg-"), "dupin.yaml")
      writeFileSync(existing, "model: openai/gpt-4.1\n")
      const session = new PtySession(["init", "--config", existing], cliEnv(), tmpdir())
      expect(await session.exited()).toBe(2)
      expect(session.output).not.toContain("Choose")
      expect(session.output).toContain("already exists")

      const ollama = join(dir("dupin-cfg-"), "dupin.yaml")
      const init = await runCli(["init", "--config", ollama, "--provider", "ollama"], { env: cliEnv() })
      expect(init.code).toBe(0)
      expect(readFileSync(ollama, "utf8")).toMatch(/^context_window: \d+$/m)

      const server = join(dir("dupin-cfg-"), "dupin.yaml")
      const scripted = await runCli(
        [
          "init",
          "--config",
          server,
          "--api-base",
          "http://10.0.0.5:4000",
          "--model",
          "llama-3-70b",
          "--api-key-env",
          "LITELLM_KEY",
        ],
        { env: cliEnv() },
      )
      expect(scripted.code).toBe(0)
      expect(scripted.stdout).toContain("export LITELLM_KEY=")
      const written = readFileSync(server, "utf8")
      expect(written).toContain("model: openai/llama-3-70b")
      expect(written).toContain('api_key: "{{ env.LITELLM_KEY }}"')
      expect(written).toContain("api_base: http://10.0.0.5:4000")
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

// Issue 21 item 5, one test per part that the tests above check together.
describe("dupin init, part by part", () => {
  test(
    "the single-model form takes context_window and max_output_tokens, as a modelList entry does",
    async () => {
      const config = join(dir("dupin-cfg-"), "dupin.yaml")
      writeFileSync(
        config,
        "model: openai/qwen2.5\napi_base: http://127.0.0.1:8000/v1\ncontext_window: 16384\nmax_output_tokens: 2048\n",
      )
      const models = await runCli(["models", "--json", "--config", config], { env: cliEnv() })
      expect(models.stderr).toBe("")
      expect(JSON.parse(models.stdout).models[0]).toMatchObject({
        context_window: 16384,
        max_output_tokens: 2048,
      })
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "--provider writes without a menu; a local model gets a context_window line",
    async () => {
      const path = join(dir("dupin-cfg-"), "dupin.yaml")
      const init = await runCli(["init", "--config", path, "--provider", "ollama"], { env: cliEnv() })
      expect(init.code).toBe(0)
      const written = readFileSync(path, "utf8")
      expect(written).toContain("model: ollama/llama3.1")
      expect(written).toMatch(/^context_window: \d+$/m)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "--api-base with --model writes a server of one's own and demands no key",
    async () => {
      const path = join(dir("dupin-cfg-"), "dupin.yaml")
      const init = await runCli(
        ["init", "--config", path, "--api-base", "http://10.0.0.5:8000/v1", "--model", "qwen2.5"],
        { env: cliEnv() },
      )
      expect(init.code).toBe(0)
      expect(init.stdout).not.toContain("export ")
      const written = readFileSync(path, "utf8")
      expect(written).toContain("api_base: http://10.0.0.5:8000/v1")
      expect(written).toContain("api_key: null")
      // The window the server serves, not the catalog's 128k guess (which also warns on every run).
      expect(written).toMatch(/^context_window: \d+$/m)
      const models = await runCli(["models", "--json", "--config", path], { env: cliEnv() })
      expect(models.stderr).toBe("")
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
