import { describe, expect, test } from "bun:test"
import { cliEnv, runCli, SUBPROCESS_TIMEOUT_MS, tempFile } from "./support.ts"

type Row = { name: string; status: string; error: string | null; checked_at: string | null; tools: string[] }

function customToolsetConfig(): string {
  const toolsets = tempFile(
    "team.yaml",
    `toolsets:
  team/needs-var:
    description: Needs a variable that is not set
    prerequisites:
      - env: [DUPIN_TEST_UNSET_VARIABLE]
    tools:
      - name: team_echo
        description: Echo
        command: "echo hi"
  team/ok:
    description: Always available
    tools:
      - name: team_ok
        description: Echo
        command: "echo ok"
`,
  )
  return tempFile("dupin.yaml", `model: openai/gpt-4o\ncustom_toolsets: [${toolsets}]\n`)
}

describe("dupin toolsets", () => {
  test(
    "list --json gives each toolset's name, status, error and check time",
    async () => {
      const result = await runCli(["toolsets", "list", "--json", "--config", customToolsetConfig()])
      expect(result.code).toBe(0)
      const rows: Row[] = JSON.parse(result.stdout)
      const byName = Object.fromEntries(rows.map((r) => [r.name, r]))
      expect(byName["team/ok"]).toMatchObject({ status: "enabled", error: null, tools: ["team_ok"] })
      expect(byName["team/needs-var"]?.status).toBe("failed")
      expect(byName["team/needs-var"]?.error).toContain("DUPIN_TEST_UNSET_VARIABLE")
      // Off until configured (CONTRACT §6).
      expect(byName.bash).toMatchObject({ status: "disabled", error: null })
      expect(byName.core_investigation?.status).toBe("enabled")
      for (const row of rows) expect(Number.isNaN(Date.parse(row.checked_at ?? ""))).toBe(false)
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  // Issue 21 item 4: the README synopsis named the flag, the binary refused it.
  test(
    "--toolset-file adds a toolset file, as ask does, to check it before use",
    async () => {
      const extra = tempFile(
        "holmes.yaml",
        "toolsets:\n  holmes/extra:\n    description: x\n    tools:\n      - name: holmes_extra\n        description: x\n        command: echo x\n",
      )
      const result = await runCli([
        "toolsets",
        "--json",
        "--config",
        customToolsetConfig(),
        "--toolset-file",
        extra,
      ])
      expect(result.stderr).toBe("")
      expect(result.code).toBe(0)
      const names = (JSON.parse(result.stdout) as Row[]).map((r) => r.name)
      expect(names).toContain("holmes/extra")
      expect(names).toContain("team/ok")
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "check re-runs the prerequisites and prints a table",
    async () => {
      const result = await runCli(["toolsets", "check", "--config", customToolsetConfig()])
      expect(result.code).toBe(0)
      const lines = result.stdout.trimEnd().split("\n")
      expect(lines[0]).toMatch(/^TOOLSET\s+STATUS\s+CHECKED\s+ERROR$/)
      expect(lines.find((l) => l.startsWith("team/needs-var"))).toMatch(
        /failed\s+\d\d:\d\d:\d\d\s+.*DUPIN_TEST_UNSET_VARIABLE/,
      )
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "--bash is an ask flag; the bash toolset stays off for toolsets list",
    async () => {
      const result = await runCli(["toolsets", "--bash"])
      expect(result.code).toBe(2)
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})

describe("dupin models", () => {
  test(
    "--json lists the modelList keys like GET /api/model, with catalog facts, no key needed",
    async () => {
      const path = tempFile(
        "dupin.yaml",
        `modelList:
  fast: { model: openai/gpt-4o-mini, api_key: "{{ env.NOT_SET_ANYWHERE }}" }
  big: { model: anthropic/claude-sonnet-4-5, context_window: 1000000 }
`,
      )
      const result = await runCli(["models", "--json", "--config", path])
      expect(result.code).toBe(0)
      const body = JSON.parse(result.stdout)
      expect(body.model_name).toEqual(["fast", "big"])
      expect(body.models[0]).toMatchObject({ name: "fast", model: "openai/gpt-4o-mini" })
      expect(body.models[1]).toMatchObject({
        name: "big",
        model: "anthropic/claude-sonnet-4-5",
        context_window: 1000000,
      })
    },
    SUBPROCESS_TIMEOUT_MS,
  )

  test(
    "without a config file the model comes from MODEL",
    async () => {
      const result = await runCli(["models", "--json"], {
        env: cliEnv(undefined, { MODEL: "openai/gpt-4.1" }),
      })
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout).model_name).toEqual(["openai/gpt-4.1"])
    },
    SUBPROCESS_TIMEOUT_MS,
  )
})
