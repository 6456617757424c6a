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
